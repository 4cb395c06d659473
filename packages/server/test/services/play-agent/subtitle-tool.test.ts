import { describe, expect, it } from 'vitest';
import { SubtitleTool } from '../../../src/services/play-agent/stream/subtitle-tool.js';

const SRT = Buffer.from(
  '1\n00:00:01,000 --> 00:00:02,500\nHello\n\n2\n00:00:03,000 --> 00:00:04,000\nAgain\n',
);

/** The subtitle tool against the machine's real ffmpeg, and a node without it. */
describe('SubtitleTool', () => {
  it('converts a subtitle file with ffmpeg', async () => {
    const vtt = (await new SubtitleTool().convert(SRT, 'vtt')).toString('utf8');
    expect(vtt.startsWith('WEBVTT')).toBe(true);
    expect(vtt).toMatch(/(00:)?00:03\.000 --> (00:)?00:04\.000\nAgain/);
  });

  it('answers 503 FFMPEG_UNAVAILABLE on a node without ffmpeg', async () => {
    const tool = new SubtitleTool({ binary: '/nonexistent/ffmpeg' });
    await expect(tool.convert(SRT, 'vtt')).rejects.toMatchObject({
      statusCode: 503,
      code: 'FFMPEG_UNAVAILABLE',
    });
  });

  it('stops at its output limit and reports what ffmpeg could not read', async () => {
    await expect(new SubtitleTool({ maxBytes: 16 }).convert(SRT, 'vtt')).rejects.toMatchObject({
      statusCode: 413,
      code: 'SUBTITLE_TOO_LARGE',
    });
    await expect(
      new SubtitleTool().convert(Buffer.from('not a subtitle at all'), 'vtt'),
    ).rejects.toMatchObject({
      statusCode: 422,
      code: 'SUBTITLE_EXTRACT_FAILED',
    });
  });

  it('refuses a run beyond its waiting room instead of queueing without end', async () => {
    const tool = new SubtitleTool({ concurrency: 1, maxWaiting: 1 });
    const runs = [tool.convert(SRT, 'vtt'), tool.convert(SRT, 'srt'), tool.convert(SRT, 'vtt')];
    const settled = await Promise.allSettled(runs);
    expect(settled.map((run) => run.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({
      statusCode: 503,
      code: 'SUBTITLE_BUSY',
    });
  });

  it('reads only loopback addresses', () => {
    expect(() => new SubtitleTool().extract('http://example.com/x.mkv', 2, 'vtt')).toThrow(/loopback/);
  });
});
