import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG, type VfsCacheConfig } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { entryBadge } from '../../../../src/services/play-agent/vfs/entry-badge.js';
import { observeProbeReads } from '../../../../src/services/play-agent/vfs/probe-observer.js';
import { covers, totalBytes } from '../../../../src/services/play-agent/vfs/range-set.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { makeVideo } from '../../../support/media-fixtures.js';
import { waitUntil } from '../../../support/wait.js';
import { memorySource, readAll } from './memory-source.js';

const KiB = 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-probe-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const files = { tail: path.join(root, 'tail.mp4'), mkv: path.join(root, 'movie.mkv') };
/** ffprobe behind a script that notes each probe run (not the `-version` check). */
const probeLog = path.join(root, 'probe.log');
const probeTool = path.join(root, 'ffprobe-logged');
const never = new AbortController().signal;

beforeAll(async () => {
  writeFileSync(
    probeTool,
    `#!/bin/sh\ncase "$*" in *-show_format*) echo probe >> '${probeLog}';; esac\nexec ffprobe "$@"\n`,
  );
  chmodSync(probeTool, 0o755);
  await Promise.all([
    makeVideo(files.tail, { seconds: 20, languages: ['eng'], format: 'mp4', moov: 'end' }),
    makeVideo(files.mkv, { seconds: 20, languages: ['eng', 'fra'], format: 'mkv' }),
  ]);
}, 120_000);

async function probeRuns(): Promise<number> {
  const text = await readFile(probeLog, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

/** Offset of the top-level `moov` box of an MP4. */
function moovStart(content: Buffer): number {
  let offset = 0;
  while (content.toString('latin1', offset + 4, offset + 8) !== 'moov')
    offset += content.readUInt32BE(offset);
  return offset;
}

const config: VfsCacheConfig = {
  ...DEFAULT_VFS_CACHE_CONFIG,
  enabled: true,
  minHeadBytes: 64 * KiB,
  minTailBytes: 64 * KiB,
  perFileHardCapBytes: 256 * KiB,
  probeBudgetBytes: 128 * KiB,
};

async function idle(cache: VfsCache): Promise<void> {
  await waitUntil(
    () =>
      cache.downloads.runningCount === 0 &&
      cache.downloads.waitingCount === 0 &&
      cache.store.entries().every((entry) => !entry.inUse),
    'the background work to end',
    60_000,
  );
}

describe('the smart probe', () => {
  it('notes the ranges ffprobe reads through the loopback reader, in small answers', async () => {
    for (const file of Object.values(files)) {
      const content = await readFile(file);
      const ranges = await observeProbeReads(memorySource(content), content.length, {
        binary: 'ffprobe',
        timeoutMs: 60_000,
      });
      expect(ranges[0]?.start).toBe(0);
      // Far less than the file: ffprobe reads the head and the container's metadata, not the media.
      expect(totalBytes(ranges)).toBeLessThan(content.length / 2);
      if (file.endsWith('.mp4'))
        expect(covers(ranges, { start: moovStart(content), end: content.length - 1 }));
    }
  });

  it('runs once per version of a file after its first stream, and the next open finds its ranges', async () => {
    const cache = await VfsCache.open(config, path.join(root, 'smart'), { probeTool, pollMs: 5 });
    expect(cache.probeAvailable).toBe(true);
    const content = await readFile(files.tail);
    const options = { sourceId: 'drive:/tail.mp4', name: 'tail.mp4', durationSeconds: 20 };
    const first = cache.wrap(memorySource(content), options);
    await readAll(first, { start: 0, end: 4095 });
    await first.close();
    await idle(cache);
    expect(await probeRuns()).toBe(1);
    const [info] = cache.store.entries();
    expect(entryBadge(info!)).toBe('SMART_READY');

    const again = memorySource(content);
    const second = cache.wrap(again, options);
    if (!(second instanceof CachedSource)) throw new Error('the cache did not wrap the source');
    const entry = await second.cacheEntry(never);
    const observed = entry.meta.probeRanges!;
    expect(observed.length).toBeGreaterThan(0);
    expect(covers(observed, { start: moovStart(content), end: content.length - 1 })).toBe(true);
    // The smart plan holds the observed ranges (all fit the budget here), and all of it is on disk.
    const plan = entry.meta.smartRanges!;
    for (const range of observed) expect(covers(plan, range)).toBe(true);
    expect(totalBytes(plan)).toBeLessThanOrEqual(config.perFileHardCapBytes);
    for (const range of plan) {
      expect((await readAll(second, range)).equals(content.subarray(range.start, range.end + 1))).toBe(true);
    }
    expect(again.served).toBe(0);
    await second.close();
    await idle(cache);
    expect(await probeRuns()).toBe(1);
    // Another version of the file (a new mtime) empties the entry and is probed again.
    const changed = cache.wrap(memorySource(content, { mtime: new Date(1_800_000_000_000) }), options);
    await readAll(changed, { start: 0, end: 4095 });
    await changed.close();
    await idle(cache);
    expect(await probeRuns()).toBe(2);
    await cache.stop();
  }, 120_000);

  it('does not run when off or without ffprobe: the plan is the index (or head and tail) only', async () => {
    const before = await probeRuns();
    const absent = await VfsCache.open(config, path.join(root, 'none'), {
      probeTool: path.join(root, 'no-such-ffprobe'),
    });
    expect(absent.probeAvailable).toBe(false);
    await absent.stop();

    const cache = await VfsCache.open({ ...config, smartProbe: false }, path.join(root, 'off'), {
      probeTool,
      pollMs: 5,
    });
    const content = await readFile(files.mkv);
    const first = cache.wrap(memorySource(content), { sourceId: 'drive:/movie.mkv', name: 'movie.mkv' });
    await readAll(first, { start: 0, end: 4095 });
    await first.close();
    await idle(cache);
    expect(await probeRuns()).toBe(before);
    const [info] = cache.store.entries();
    // The Cues were found through the SeekHead and fetched in the background.
    expect(entryBadge(info!)).toBe('SMART_READY');
    await cache.stop();
  }, 120_000);
});
