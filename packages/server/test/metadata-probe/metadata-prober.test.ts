import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlaybackFile } from '@svc/contracts';
import { MetadataProber } from '../../src/services/play-agent/metadata-probe/metadata-prober.js';
import { openLocalFile, type MediaSource } from '../../src/services/play-agent/stream/sources.js';
import { makeVideo } from '../support/media-fixtures.js';

const logger = pino({ level: 'silent' });

describe('metadata prober', () => {
  let dir: string;
  let video: string;
  let file: PlaybackFile;
  /** Bytes the "drive" (the file source under the cap) delivered. */
  let driveBytes = 0;
  let prober: MetadataProber;

  const counting = (source: MediaSource): MediaSource => ({
    ...source,
    facts: (signal) => source.facts(signal),
    close: () => source.close(),
    async open(range, signal) {
      const body = await source.open(range, signal);
      return {
        async read() {
          const chunk = await body.read();
          if (chunk) driveBytes += chunk.length;
          return chunk;
        },
        release: (chunk) => body.release(chunk),
        close: () => body.close(),
      };
    },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'metadata-prober-'));
    video = join(dir, 'moov-at-end.mp4');
    // The index at the end: ffprobe must seek there, which the cap can forbid.
    await makeVideo(video, { seconds: 4, languages: ['eng'], format: 'mp4', moov: 'end' });
    const size = (await stat(video)).size;
    file = { nodeId: 'n', mountId: 'm', path: video, size, mtime: null, mediaInfo: null, subtitles: [] };
    prober = new MetadataProber({
      logger,
      open: async () => {
        const opened = await openLocalFile(video, null);
        if (!opened.ok) throw new Error(`cannot open ${video}: ${opened.reason}`);
        return counting(opened.source);
      },
    });
  }, 120_000);
  afterAll(async () => {
    await prober?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the streams of a played file through the loopback source', async () => {
    driveBytes = 0;
    const result = await prober.probe(file, 32 * 1024 * 1024);
    expect(result.mediaInfo.streams.map((stream) => [stream.type, stream.codec])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ]);
    expect(result.mediaInfo.durationSeconds).toBeGreaterThan(3);
    expect(result.bytesRead).toBeGreaterThan(0);
    // Every byte the drive delivered is counted against the budget.
    expect(result.bytesRead).toBe(driveBytes);
  });

  it('stops reading the drive at the traffic cap', async () => {
    driveBytes = 0;
    const cap = 8 * 1024;
    expect(file.size!).toBeGreaterThan(4 * cap);
    await expect(prober.probe(file, cap)).rejects.toMatchObject({ code: 'PROBE_FAILED' });
    expect(driveBytes).toBeGreaterThan(0);
    expect(driveBytes).toBeLessThanOrEqual(cap);
  });
});
