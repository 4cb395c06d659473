import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_CACHE_CONFIG, type ImageCacheConfig } from '@svc/contracts';
import { ImageCache } from '../../src/services/play-agent/image-cache/image-cache.js';
import { matchesEtag } from '../../src/services/play-agent/image-cache/artwork.routes.js';

const HOUR = 60 * 60 * 1000;
const logger = pino({ level: 'silent' });

/** Every sidecar on disk, parsed. */
async function sidecars(dir: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const shard of await readdir(dir).catch(() => [] as string[])) {
    for (const name of await readdir(join(dir, shard))) {
      if (name.endsWith('.json')) {
        found.push(JSON.parse(await readFile(join(dir, shard, name), 'utf8')) as Record<string, unknown>);
      }
    }
  }
  return found;
}

describe('image cache', () => {
  let dir: string;
  let now: number;
  let fetches: string[];
  const config = (over: Partial<ImageCacheConfig> = {}): ImageCacheConfig => ({
    ...DEFAULT_IMAGE_CACHE_CONFIG,
    directory: dir,
    ...over,
  });
  const make = (over: Partial<ImageCacheConfig> = {}) =>
    new ImageCache(config(over), { defaultDirectory: '/nonexistent', logger, now: () => now });
  const image = (cache: ImageCache, key: string, size = 100) =>
    cache.image(key, () => {
      fetches.push(key);
      return Promise.resolve({
        body: Buffer.alloc(size, key),
        contentType: 'image/jpeg',
        itemId: `item-${key}`,
      });
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'image-cache-'));
    now = Date.parse('2026-01-01T00:00:00Z');
    fetches = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches on a miss, answers a hit from disk, and writes a sidecar per image', async () => {
    const cache = make();
    const first = await image(cache, 'a');
    const second = await image(cache, 'a');
    expect(first?.hit).toBe(false);
    expect(second?.hit).toBe(true);
    expect(second?.body.equals(first!.body)).toBe(true);
    expect(second?.etag).toBe(first?.etag);
    expect(second?.itemId).toBe('item-a');
    expect(fetches).toEqual(['a']);
    const [sidecar] = await sidecars(dir);
    expect(sidecar).toMatchObject({
      contentType: 'image/jpeg',
      etag: first!.etag,
      size: 100,
      lastAccessAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 7 * 24 * HOUR).toISOString(),
    });
    // A new process reads the index back from the sidecars.
    const reopened = make();
    expect((await image(reopened, 'a'))?.hit).toBe(true);
    expect(fetches).toEqual(['a']);
  });

  it('shares one fetch between concurrent misses and keeps nothing when the image does not exist', async () => {
    const cache = make();
    const answers = await Promise.all([image(cache, 'b'), image(cache, 'b'), image(cache, 'b')]);
    expect(answers.map((answer) => answer?.etag)).toEqual(Array(3).fill(answers[0]?.etag));
    expect(fetches).toEqual(['b']);
    expect(await cache.image('none', () => Promise.resolve(null))).toBeNull();
    expect(cache.stats().entries).toBe(1);
  });

  it('evicts the least recently used images beyond the capacity', async () => {
    const cache = make({ capacityBytes: 250 });
    await image(cache, 'a');
    now += 1000;
    await image(cache, 'b');
    now += 1000;
    await image(cache, 'a'); // a is now the most recent
    now += 1000;
    await image(cache, 'c'); // 300 bytes > 250: b goes
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 200 });
    expect((await sidecars(dir)).map((sidecar) => sidecar.key).sort()).toEqual(['a', 'c']);
    expect((await image(cache, 'b'))?.hit).toBe(false);
  });

  it('removes images not accessed within the retention, counted from the last access', async () => {
    const cache = make({ retentionHours: 1 });
    await image(cache, 'old');
    await image(cache, 'kept');
    now += 50 * 60 * 1000;
    await image(cache, 'kept'); // moves its expiry forward
    now += 20 * 60 * 1000;
    await cache.cleanupNow();
    expect((await sidecars(dir)).map((sidecar) => sidecar.key)).toEqual(['kept']);
    const [sidecar] = await sidecars(dir);
    expect(sidecar?.lastAccessAt).toBe(new Date(now - 20 * 60 * 1000).toISOString());
    now += 2 * HOUR;
    expect((await image(cache, 'kept'))?.hit).toBe(false);
  });

  it('clears every image on clearAll, and with the cache off fetches every time and stores nothing', async () => {
    const cache = make();
    await image(cache, 'a');
    await image(cache, 'b');
    await cache.clearAll();
    expect(await sidecars(dir)).toEqual([]);
    expect(cache.stats().entries).toBe(0);
    expect((await image(cache, 'a'))?.hit).toBe(false);

    cache.apply(config({ enabled: false }));
    const off = await image(cache, 'c');
    expect(off?.hit).toBe(false);
    expect(off?.etag).toMatch(/^".+"$/);
    expect((await image(cache, 'c'))?.hit).toBe(false);
    expect((await sidecars(dir)).map((sidecar) => sidecar.key)).toEqual(['a']);
  });

  it('applies a smaller capacity at run time', async () => {
    const cache = make();
    for (const key of ['a', 'b', 'c']) await image(cache, key);
    cache.apply(config({ capacityBytes: 100 }));
    await cache.cleanupNow();
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 100 });
  });

  it('tells a revalidation the ETag from the index, counting it as an access', async () => {
    const cache = make({ capacityBytes: 250, retentionHours: 1 });
    const a = await image(cache, 'a');
    now += 1000;
    await image(cache, 'b');
    now += 1000;
    // A 304 of a: no image read, yet a becomes the most recent and its expiry moves forward.
    expect(await cache.cachedFacts('a')).toEqual({
      contentType: 'image/jpeg',
      etag: a!.etag,
      itemId: 'item-a',
    });
    expect(await cache.cachedFacts('unknown')).toBeUndefined();
    now += 1000;
    await image(cache, 'c'); // beyond 250 bytes: b, not a, goes
    expect((await sidecars(dir)).map((sidecar) => sidecar.key).sort()).toEqual(['a', 'c']);
    now += 2 * HOUR;
    expect(await cache.cachedFacts('a')).toBeUndefined();
    expect((await sidecars(dir)).map((sidecar) => sidecar.key)).toEqual(['c']);
    cache.apply(config({ enabled: false }));
    expect(await cache.cachedFacts('c')).toBeUndefined();
  });

  it('answers hot images from memory and the rest from disk, the same bytes either way', async () => {
    const cache = make();
    const first = await image(cache, 'a', 4096);
    // A fresh process has nothing in memory: the hit reads the file the first cache wrote.
    const reopened = make();
    const fromDisk = await image(reopened, 'a', 4096);
    expect(fromDisk?.hit).toBe(true);
    expect(fromDisk?.body.equals(first!.body)).toBe(true);
    // Now in memory too: the answer no longer depends on the file.
    const shard = (await readdir(dir))[0]!;
    const file = (await readdir(join(dir, shard))).find((name) => name.endsWith('.img'))!;
    await rm(join(dir, shard, file));
    expect((await image(reopened, 'a', 4096))?.body.equals(first!.body)).toBe(true);
    // The flush empties memory as well as the disk.
    await reopened.clearAll();
    expect((await image(reopened, 'a', 4096))?.hit).toBe(false);
  });

  it('compares If-None-Match like HTTP (lists, weak tags, *)', () => {
    expect(matchesEtag('"x"', '"x"')).toBe(true);
    expect(matchesEtag('"y", W/"x"', '"x"')).toBe(true);
    expect(matchesEtag('*', '"x"')).toBe(true);
    expect(matchesEtag('"y"', '"x"')).toBe(false);
    expect(matchesEtag(undefined, '"x"')).toBe(false);
  });
});
