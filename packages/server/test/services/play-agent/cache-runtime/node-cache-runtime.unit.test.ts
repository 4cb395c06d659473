import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_NODE_CACHE_CONFIG, type NodeCacheConfig, type VfsCacheConfig } from '@svc/contracts';
import { AppError } from '../../../../src/platform/http/errors.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { NodeCacheRuntime } from '../../../../src/services/play-agent/cache-runtime/node-cache-runtime.js';
import { entryKey } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { memorySource, patternBytes, readAll } from '../vfs/memory-source.js';

const root = mkdtempSync(path.join(tmpdir(), 'svc-cache-runtime-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const logger = createLogger({ level: 'silent', component: 'play-agent' });
let runtimes = 0;

function newRuntime(): NodeCacheRuntime {
  const base = path.join(root, `node-${++runtimes}`);
  return new NodeCacheRuntime({
    defaultDirectory: path.join(base, 'vfs_cache'),
    baseDirectory: base,
    logger,
  });
}

const withVfs = (vfs: Partial<VfsCacheConfig>): NodeCacheConfig => ({
  ...DEFAULT_NODE_CACHE_CONFIG,
  vfs: { ...DEFAULT_NODE_CACHE_CONFIG.vfs, mode: 'READ_AHEAD', ...vfs },
});

const file = (name: string) => ({ sourceId: `mount-1:/${name}`, name });

describe('the node cache runtime', () => {
  it('passes sources through while the cache is off, and caches them once it is on', async () => {
    const runtime = newRuntime();
    const content = patternBytes(300_000);
    const upstream = memorySource(content);
    expect(runtime.wrap(upstream, file('a.mkv'))).toBe(upstream);
    expect(runtime.cache).toBeNull();

    await runtime.apply(withVfs({ enabled: true }));
    expect(runtime.directory).toBe(path.join(root, `node-${runtimes}`, 'vfs_cache'));
    const first = runtime.wrap(upstream, file('a.mkv'));
    expect(first).not.toBe(upstream);
    expect((await readAll(first, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    await first.close();
    const served = upstream.served;

    const again = memorySource(content);
    const second = runtime.wrap(again, file('a.mkv'));
    expect((await readAll(second, { start: 0, end: 99_999 })).equals(content.subarray(0, 100_000))).toBe(
      true,
    );
    expect(again.served).toBe(0);
    expect(served).toBeGreaterThanOrEqual(content.length);
    await second.close();
    await runtime.stop();
  });

  it('keeps a running stream on its cache object when the directory changes, then stops that object', async () => {
    const runtime = newRuntime();
    await runtime.apply(withVfs({ enabled: true }));
    const oldCache = runtime.cache!;
    const content = patternBytes(200_000, 3);
    const running = runtime.wrap(memorySource(content), file('b.mkv'));
    expect((await readAll(running, { start: 0, end: 49_999 })).equals(content.subarray(0, 50_000))).toBe(
      true,
    );

    await runtime.apply(withVfs({ enabled: true, directory: 'elsewhere' }));
    expect(runtime.directory).toBe(path.join(root, `node-${runtimes}`, 'elsewhere'));
    expect(runtime.cache).not.toBe(oldCache);
    // The running stream still reads through the old object.
    expect((await readAll(running, { start: 50_000, end: 199_999 })).equals(content.subarray(50_000))).toBe(
      true,
    );
    expect(oldCache.store.usage().entriesInUse).toBe(1);
    await running.close();
    expect(existsSync(path.join(root, `node-${runtimes}`, 'elsewhere'))).toBe(true);

    // Switched off: new sources pass by; a capacity change applies to the live object without a new one.
    await runtime.apply(withVfs({ enabled: true, directory: 'elsewhere', capacityBytes: 512 * 1024 * 1024 }));
    expect(runtime.cache!.store.usage().capacityBytes).toBe(512 * 1024 * 1024);
    await runtime.apply(withVfs({ enabled: false }));
    expect(runtime.cache).toBeNull();
    const plain = memorySource(content);
    expect(runtime.wrap(plain, file('c.mkv'))).toBe(plain);
    await runtime.stop();
  });

  it('refuses to delete a playing entry, deletes it once closed, and flushes every registered cache', async () => {
    const runtime = newRuntime();
    await runtime.apply(withVfs({ enabled: true }));
    const content = patternBytes(100_000, 5);
    const playing = runtime.wrap(memorySource(content), file('d.mkv'));
    await readAll(playing, { start: 0, end: 9_999 });
    const key = entryKey('mount-1:/d.mkv');

    const listed = runtime.list({
      page: 1,
      pageSize: 10,
      groupByEpisodes: false,
      sort: 'lastAccess',
      order: 'desc',
    });
    expect(listed.rows.map((row) => row.key)).toEqual([key]);
    expect(listed.rows[0]!.entries[0]!.badge).toBe('PLAYING');

    const refused = await runtime.remove({ entryId: key }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('CACHE_ENTRY_IN_USE');
    expect(await runtime.remove({ all: true })).toEqual({ removed: 0, inUse: 1 });
    await playing.close();
    expect((await runtime.diskUsage()).entries).toBe(1);

    let imagesCleared = 0;
    runtime.onFlush('image', async () => {
      imagesCleared++;
    });
    const flushed = await runtime.flush();
    expect(flushed).toEqual({ vfs: { removed: 1, inUse: 0 }, others: { image: { ok: true } } });
    expect(imagesCleared).toBe(1);
    expect((await runtime.diskUsage()).entries).toBe(0);
    expect(runtime.settings.vfs.enabled).toBe(true);
    const absent = await runtime.remove({ entryId: key }).catch((error: unknown) => error);
    expect((absent as AppError).code).toBe('NOT_FOUND');
    await runtime.stop();
  });
});
