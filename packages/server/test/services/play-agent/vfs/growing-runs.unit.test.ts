import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { STARTUP_RUNS } from '../../../../src/services/play-agent/vfs/startup-source.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-runs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => path.join(root, `store-${++folders}`);

describe('growing upstream runs', () => {
  it('asks upstream for a short first run, then doubles up to the largest run, byte-exact', async () => {
    const content = patternBytes(MiB + 5);
    const upstream = memorySource(content, { chunkBytes: 16 * KiB });
    const store = await CacheStore.open({ directory: folder(), capacityBytes: 64 * MiB });
    const source = new CachedSource(upstream, store, {
      sourceId: 'm:/film.mkv',
      name: 'film.mkv',
      writable: () => [],
      growingRuns: { firstBytes: 64 * KiB, maxBytes: 256 * KiB },
    });
    const body = await readAll(source, { start: 0, end: content.length - 1 });
    expect(body.equals(content)).toBe(true);
    const sizes = upstream.opens.map((range) => range.end - range.start + 1);
    expect(sizes).toEqual([64 * KiB, 128 * KiB, 256 * KiB, 256 * KiB, 256 * KiB, 64 * KiB + 5]);
    await source.close();
    await store.close();
  });

  it('a reader that leaves after its first bytes asked upstream for the first run only', async () => {
    const content = patternBytes(8 * MiB);
    const upstream = memorySource(content);
    const store = await CacheStore.open({ directory: folder(), capacityBytes: 64 * MiB });
    const source = new CachedSource(upstream, store, {
      sourceId: 'm:/film.mp4',
      name: 'film.mp4',
      writable: () => [],
      growingRuns: { firstBytes: MiB, maxBytes: 4 * MiB },
    });
    const controller = new AbortController();
    const body = await source.open({ start: 3 * MiB, end: content.length - 1 }, controller.signal);
    const first = await body.read();
    expect(first?.length).toBeGreaterThan(0);
    await body.close();
    expect(upstream.opens).toEqual([{ start: 3 * MiB, end: 4 * MiB - 1 }]);
    await source.close();
    await store.close();
  });

  it('SMART_STARTUP streams open a run outside the plan at STARTUP_RUNS.firstBytes', async () => {
    const content = patternBytes(40 * MiB);
    const upstream = memorySource(content);
    const config = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'SMART_STARTUP' as const };
    const cache = await VfsCache.open(config, folder(), { probeTool: null });
    try {
      const source = cache.wrap(upstream, { sourceId: 'm:/clip.bin', name: 'clip.bin' });
      const controller = new AbortController();
      // The middle of the file: neither the head nor the tail of the startup plan.
      const body = await source.open({ start: 20 * MiB, end: content.length - 1 }, controller.signal);
      expect((await body.read())?.length).toBeGreaterThan(0);
      controller.abort();
      await body.close();
      const fromMiddle = upstream.opens.filter((range) => range.start === 20 * MiB);
      expect(fromMiddle).toEqual([{ start: 20 * MiB, end: 20 * MiB + STARTUP_RUNS.firstBytes - 1 }]);
      await source.close();
    } finally {
      await cache.stop();
    }
  });
});
