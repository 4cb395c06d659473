import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaSource } from '../../src/services/play-agent/stream/sources.js';
import { entryKey } from '../../src/services/play-agent/vfs/cache-store.js';
import { readRange } from '../../src/services/play-agent/vfs/read-range.js';
import { VfsCache } from '../../src/services/play-agent/vfs/vfs-cache.js';
import { waitUntil } from '../support/wait.js';
import { mediaSource } from './play-source.js';
import { SMALL_SMART, recordedRanges, settled } from './cache-fixture.js';
import { rangedRead, serveMedia, type MediaServer } from './media-server.js';
import { startVfsOrigin, type VfsOrigin } from './vfs-origin.js';

/*
 * Seeks (ranges into the middle, stitched from cached and upstream bytes) and eviction (capacity, age)
 * against the WebDAV origin behind the slow link. The files are random bytes: only offsets matter here.
 */

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-e2e-seek-'));
const files = new Map<string, Buffer>();
let origin: VfsOrigin;
let cache: VfsCache;
let server: MediaServer;

beforeAll(async () => {
  origin = await startVfsOrigin({ latencyMs: 15, bytesPerSecond: 8 * MiB });
  for (const name of ['seek.bin', 'a.bin', 'b.bin', 'c.bin']) {
    const content = randomBytes(name === 'seek.bin' ? 3 * MiB : MiB);
    writeFileSync(path.join(origin.davDir, name), content);
    files.set(name, content);
  }
  cache = await VfsCache.open(SMALL_SMART, path.join(root, 'cache'));
  server = await serveMedia((file) => mediaSource(origin, cache, file));
}, 600_000);

afterAll(async () => {
  await server?.close();
  await cache?.stop();
  await origin?.stop();
  rmSync(root, { recursive: true, force: true });
});

const content = (name: string) => files.get(name)!;
const key = (name: string) => entryKey(`${origin.mount.id}:${name}`);

/** File content bytes that crossed the slow link while `action` ran. */
async function upstreamBytes(action: () => Promise<unknown>): Promise<number> {
  const before = origin.proxy.stats.getBytes;
  await action();
  await settled(cache, origin.proxy);
  return origin.proxy.stats.getBytes - before;
}

describe('seeks through the cache', () => {
  it('answers a range into the middle correctly, and stitches the cached head to upstream bytes', async () => {
    const data = content('seek.bin');
    const url = server.url('seek.bin');
    const head = { start: 0, end: SMALL_SMART.minHeadBytes - 1 };
    // The first start keeps the head (and the basic tail: this file has no container index).
    await upstreamBytes(async () =>
      expect((await rangedRead(url, head)).equals(data.subarray(0, head.end + 1))).toBe(true),
    );
    expect(
      await recordedRanges(cache.store.directory, `${origin.mount.id}:seek.bin`, data.length),
    ).toContainEqual(head);

    const middle = { start: Math.floor(1.3 * MiB) + 7, end: 2 * MiB + 4095 };
    let answer: Buffer = Buffer.alloc(0);
    const seekBytes = await upstreamBytes(async () => (answer = await rangedRead(url, middle)));
    expect(answer.equals(data.subarray(middle.start, middle.end + 1))).toBe(true);
    expect(seekBytes).toBe(middle.end - middle.start + 1);

    // Across the end of the head: the cached part from disk, only the rest over the link.
    const across = { start: 100_000, end: SMALL_SMART.minHeadBytes + 200_000 };
    const acrossBytes = await upstreamBytes(async () => (answer = await rangedRead(url, across)));
    expect(answer.equals(data.subarray(across.start, across.end + 1))).toBe(true);
    expect(acrossBytes).toBe(across.end - SMALL_SMART.minHeadBytes + 1);
  });
});

describe('eviction', () => {
  // READ_AHEAD keeps every byte read: a whole read fills an entry with exactly the file's size.
  const READ_AHEAD = { ...SMALL_SMART, mode: 'READ_AHEAD' as const };
  let cache: VfsCache;
  beforeAll(async () => {
    cache = await VfsCache.open(READ_AHEAD, path.join(root, 'evict'));
  });
  afterAll(async () => cache?.stop());

  async function fill(name: string, playingEntries = 0): Promise<void> {
    const data = content(name);
    const source = mediaSource(origin, cache, name);
    try {
      expect((await readRange(source, { start: 0, end: data.length - 1 })).equals(data)).toBe(true);
    } finally {
      await source.close();
    }
    await settled(cache, origin.proxy, playingEntries);
  }

  /** A source of the file with one range read and still open: an entry in use (a playing stream). */
  async function playing(name: string): Promise<MediaSource> {
    const source = mediaSource(origin, cache, name);
    const first = await readRange(source, { start: 0, end: 1023 });
    expect(first.equals(content(name).subarray(0, 1024))).toBe(true);
    return source;
  }

  it('removes least recently used entries beyond the capacity, never one that plays', async () => {
    for (const name of ['a.bin', 'b.bin', 'c.bin']) {
      await fill(name);
      // Distinct last-access times, so the least recently used one is well defined.
      const touched = Date.now();
      await waitUntil(() => Date.now() > touched, 'the clock to move');
    }
    expect(cache.store.usage().usedBytes).toBe(3 * MiB);

    const source = await playing('a.bin');
    try {
      // Room for two files: a.bin is the oldest but plays, so b.bin goes instead.
      cache.apply({ ...READ_AHEAD, capacityBytes: 2 * MiB });
      await cache.clean();
      expect(
        cache.store
          .entries()
          .map((entry) => entry.key)
          .sort(),
      ).toEqual([key('a.bin'), key('c.bin')].sort());
      // b.bin again: over capacity, c.bin (least recently used, not playing) makes room.
      await fill('b.bin', 1);
      await cache.clean();
      expect(
        cache.store
          .entries()
          .map((entry) => entry.key)
          .sort(),
      ).toEqual([key('a.bin'), key('b.bin')].sort());
      expect(await cache.store.remove(key('a.bin'))).toBe('in-use');
      expect(await cache.store.removeAll()).toEqual({ removed: 1, inUse: 1 });
    } finally {
      await source.close();
    }
    expect(await cache.store.remove(key('a.bin'))).toBe('removed');
    expect(cache.store.usage()).toMatchObject({ usedBytes: 0, inFlightBytes: 0, entries: 0 });
  });

  it('removes entries not accessed within the retention, never one that plays', async () => {
    const retentionHours = 0.5 / 3600;
    cache.apply({ ...READ_AHEAD, capacityBytes: 64 * MiB, retentionHours });
    await fill('a.bin');
    await fill('b.bin');
    const source = await playing('b.bin');
    try {
      const lastAccess = Math.max(...cache.store.entries().map((entry) => entry.lastAccessAt));
      await waitUntil(() => Date.now() > lastAccess + retentionHours * 3_600_000, 'the retention to pass');
      await cache.clean();
      expect(cache.store.entries().map((entry) => entry.key)).toEqual([key('b.bin')]);
    } finally {
      await source.close();
    }
    // Released now, and accessed just now: it stays until its own retention has passed.
    await cache.clean();
    expect(cache.store.entries().map((entry) => entry.key)).toEqual([key('b.bin')]);
    const released = cache.store.entries()[0]!.lastAccessAt;
    await waitUntil(() => Date.now() > released + retentionHours * 3_600_000, 'the retention to pass');
    await cache.clean();
    expect(cache.store.entries()).toEqual([]);
  });
});
