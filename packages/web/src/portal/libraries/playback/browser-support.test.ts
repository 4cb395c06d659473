import type { MediaStream, PortalFile } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { browserSupport, codecSupport } from './browser-support.js';

/** What Chromium 156 answers (measured): MP4, Matroska and WebM; H.264, AV1, VP9, AAC, Opus; no HEVC, AC-3, DTS. */
function chromium(type: string): string {
  const [container, codecs] = type.split('; codecs=');
  if (!['video/mp4', 'video/x-matroska', 'video/webm'].includes(container!)) return '';
  if (codecs === undefined) return 'maybe';
  const codec = codecs.replace(/"/g, '');
  if (container === 'video/webm')
    return ['vp9', 'vp8', 'vorbis', 'opus', 'vp09.00.40.08'].includes(codec) ? 'probably' : '';
  return ['avc1.640028', 'av01.0.08M.08', 'vp09.00.40.08', 'mp4a.40.2', 'mp4a.69', 'opus', 'flac'].includes(
    codec,
  )
    ? 'probably'
    : '';
}

const stream = (
  index: number,
  type: MediaStream['type'],
  codec: string,
  extra: Partial<MediaStream> = {},
) => ({
  index,
  type,
  codec,
  ...extra,
});

const fileOf = (container: string, streams: MediaStream[]): PortalFile => ({
  container,
  format: null,
  size: null,
  durationSeconds: null,
  bitrate: null,
  streams,
  subtitles: [],
});

describe('browserSupport', () => {
  it('plays an MP4 or MKV with H.264 and AAC', () => {
    const streams = [stream(0, 'video', 'h264'), stream(1, 'audio', 'aac')];
    expect(browserSupport(fileOf('mp4', streams), chromium).verdict).toBe('yes');
    expect(browserSupport(fileOf('mkv', streams), chromium).verdict).toBe('yes');
  });

  it('names the HEVC video and the AC-3 default audio of an MKV the browser cannot decode', () => {
    const file = fileOf('mkv', [
      stream(0, 'video', 'hevc'),
      stream(1, 'audio', 'aac'),
      stream(2, 'audio', 'ac3', { default: true }),
    ]);
    expect(browserSupport(file, chromium)).toEqual({
      verdict: 'no',
      container: null,
      video: 'HEVC',
      audio: 'AC3',
    });
  });

  it('names DTS when it is the audio a browser plays first', () => {
    const file = fileOf('mkv', [
      stream(0, 'video', 'h264'),
      stream(1, 'audio', 'dts'),
      stream(2, 'audio', 'aac'),
    ]);
    expect(browserSupport(file, chromium)).toMatchObject({ verdict: 'no', video: null, audio: 'DTS' });
  });

  it('names a container browsers do not play, judging its codecs as in MP4', () => {
    const avi = fileOf('avi', [stream(0, 'video', 'h264'), stream(1, 'audio', 'mp3')]);
    expect(browserSupport(avi, chromium)).toEqual({
      verdict: 'no',
      container: 'AVI',
      video: null,
      audio: null,
    });
    const mpeg2 = fileOf('ts', [stream(0, 'video', 'mpeg2video'), stream(1, 'audio', 'ac3')]);
    expect(browserSupport(mpeg2, chromium)).toEqual({
      verdict: 'no',
      container: 'TS',
      video: 'MPEG2VIDEO',
      audio: 'AC3',
    });
  });

  it('does not decide without a probe or for names it cannot check', () => {
    expect(browserSupport(fileOf('mkv', []), chromium).verdict).toBe('unknown');
    expect(browserSupport(fileOf('xyz', [stream(0, 'video', 'h264')]), chromium).verdict).toBe('unknown');
    expect(
      browserSupport(fileOf('mp4', [stream(0, 'video', 'h264'), stream(1, 'audio', 'newcodec')]), chromium)
        .verdict,
    ).toBe('unknown');
  });
});

describe('codecSupport', () => {
  it('asks the browser with the codec string in the container', () => {
    const asked: string[] = [];
    const record = (type: string) => (asked.push(type), '');
    expect(codecSupport('HEVC', 'video/x-matroska', record)).toBe('no');
    expect(asked).toEqual(['video/x-matroska; codecs="hvc1.1.6.L120.90"']);
    expect(codecSupport('h264', 'video/mp4', chromium)).toBe('yes');
    expect(codecSupport('vc1', 'video/mp4', () => 'probably')).toBe('no');
  });
});
