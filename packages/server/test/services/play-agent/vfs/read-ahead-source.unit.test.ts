import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG, type VfsCacheConfig } from '@svc/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { covers, totalBytes } from '../../../../src/services/play-agent/vfs/range-set.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { waitUntil } from '../../../support/wait.js';
import { countingSource, memorySource, patternBytes, readAll } from './memory-source.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-ahead-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const never = new AbortController().signal;

function open(overrides: Partial<VfsCacheConfig>): Promise<VfsCache> {
  const config: VfsCacheConfig = {
    ...DEFAULT_VFS_CACHE_CONFIG,
    enabled: true,
    mode: 'READ_AHEAD',
    ...overrides,
  };
  return VfsCache.open(config, path.join(root, `c${++folders}`), { probeTool: null, pollMs: 5 });
}

function cached(source: unknown): CachedSource {
  if (!(source instanceof CachedSource)) throw new Error('the cache did not wrap the source');
  return source;
}

describe('the cache in READ_AHEAD mode', () => {
  it('fetches the window after a stream once, and the stream then reads it from disk', async () => {
    const cache = await open({ readAheadBytes: 2 * MiB });
    const content = patternBytes(8 * MiB);
    const upstream = memorySource(content);
    const source = cached(cache.wrap(upstream, { sourceId: 'd:/a.mkv', name: 'a.mkv' }));
    expect((await readAll(source, { start: 0, end: MiB - 1 })).equals(content.subarray(0, MiB))).toBe(true);
    const entry = await source.cacheEntry(never);
    await waitUntil(() => covers(entry.recorded, { start: 0, end: 3 * MiB - 1 }), 'the read-ahead window');
    // The window ends 2 MiB after the last position; nothing was fetched twice.
    expect(totalBytes(entry.recorded)).toBe(3 * MiB);
    expect(upstream.served).toBe(3 * MiB);
    const before = upstream.opens.length;
    const next = await readAll(source, { start: MiB, end: 3 * MiB - 1 });
    expect(next.equals(content.subarray(MiB, 3 * MiB))).toBe(true);
    // The stream read its bytes from disk; only the loop went on upstream, after the window.
    expect(upstream.opens.slice(before).every((range) => range.start >= 3 * MiB)).toBe(true);
    await source.close();
    await cache.stop();
  });

  it('with a window of 0 downloads whole files in the background, one at a time, in the drive threads', async () => {
    const cache = await open({
      readAheadBytes: 0,
      backgroundConcurrency: 1,
      driveThreads: [{ driveId: 'drive-9', threads: 3, chunkSizeBytes: 256 * KiB }],
    });
    const files = [patternBytes(3 * MiB, 3), patternBytes(2 * MiB, 4)];
    const upstreams = files.map((content) => countingSource(content));
    let most = 0;
    const sources = files.map((_, index) =>
      cached(
        cache.wrap(upstreams[index]!, {
          sourceId: `drive-9:/f${index}`,
          name: `f${index}`,
          driveId: 'drive-9',
        }),
      ),
    );
    for (const [index, source] of sources.entries()) {
      await readAll(source, { start: 0, end: 1000 });
      await source.close();
      most = Math.max(most, cache.downloads.runningCount);
      expect(upstreams[index]!.served).toBeGreaterThan(0);
    }
    await waitUntil(() => {
      most = Math.max(most, cache.downloads.runningCount);
      return cache.store.entries().every((entry) => entry.cachedBytes === entry.size);
    }, 'both files downloaded');
    expect(most).toBe(1);
    // Three ranged reads of the download at once (the stream's own read may overlap the first file's).
    for (const upstream of upstreams) expect([3, 4]).toContain(upstream.most);
    expect(cache.store.entries().every((entry) => !entry.inUse)).toBe(true);
    // Everything is local now.
    const again = memorySource(files[0]!);
    const second = cached(cache.wrap(again, { sourceId: 'drive-9:/f0', name: 'f0', driveId: 'drive-9' }));
    expect((await readAll(second, { start: 0, end: files[0]!.length - 1 })).equals(files[0]!)).toBe(true);
    expect(again.served).toBe(0);
    await second.close();
    await cache.stop();
  });

  it('plays titles skipped by their release date without the cache, unless they are popular', async () => {
    const cache = await open({ skipReleasedBeforeDays: 30, forcePopularViewers: 3 });
    const upstream = memorySource(patternBytes(KiB));
    const old = { sourceId: 'd:/old', name: 'old', releaseDate: '2001-01-01' };
    expect(cache.wrap(upstream, old)).toBe(upstream);
    expect(cache.wrap(upstream, { ...old, viewersLastDay: 3 })).toBeInstanceOf(CachedSource);
    expect(cache.wrap(upstream, { ...old, releaseDate: new Date().toISOString() })).toBeInstanceOf(
      CachedSource,
    );
    await cache.stop();
  });

  it('keeps the library item of an entry (episode grouping), also across a restart', async () => {
    const cache = await open({ readAheadBytes: 64 * KiB });
    const item = { itemId: 'ep-7', seriesName: 'Show', seasonNumber: 2, episodeNumber: 7 };
    const source = cache.wrap(memorySource(patternBytes(MiB)), {
      sourceId: 'd:/s02e07',
      name: 'e7',
      ...item,
    });
    await readAll(source, { start: 0, end: 999 });
    await source.close();
    expect(cache.store.entries()[0]?.item).toEqual(item);
    await cache.stop();
    const restarted = await CacheStore.open({ directory: cache.store.directory, capacityBytes: MiB * 64 });
    expect(restarted.entries()[0]?.item).toEqual(item);
  });
});
