import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { DiskPressure } from '../../../../src/services/play-agent/vfs/disk-pressure.js';
import { chunksOf, fillRanges } from '../../../../src/services/play-agent/vfs/range-fill.js';
import { covers, totalBytes } from '../../../../src/services/play-agent/vfs/range-set.js';
import { ReadAheadLoop } from '../../../../src/services/play-agent/vfs/read-ahead-loop.js';
import { waitUntil } from '../../../support/wait.js';
import { countingSource, memorySource, patternBytes, readAll } from './memory-source.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-fill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const never = new AbortController().signal;

async function entryOf(content: Buffer, store?: CacheStore) {
  const cacheStore =
    store ??
    (await CacheStore.open({ directory: path.join(root, `s${++folders}`), capacityBytes: 64 * MiB }));
  const reader = new CachedSource(memorySource(content), cacheStore, {
    sourceId: 'drive-1:/film.mkv',
    name: 'film.mkv',
    writable: (facts) => [{ start: 0, end: facts.size - 1 }],
  });
  return { store: cacheStore, reader, entry: await reader.cacheEntry(never) };
}

describe('fills', () => {
  it('cut ranges into chunks', () => {
    expect(chunksOf([{ start: 10, end: 34 }], 10)).toEqual([
      { start: 10, end: 19 },
      { start: 20, end: 29 },
      { start: 30, end: 34 },
    ]);
  });

  it('fetch `threads` chunks at once, each at its own offset, byte-exact', async () => {
    const content = patternBytes(2 * MiB + 777);
    const { store, reader, entry } = await entryOf(content);
    const upstream = countingSource(content);
    const result = await fillRanges(entry, store, upstream, [{ start: 0, end: content.length - 1 }], {
      signal: never,
      threads: 4,
      chunkBytes: 256 * KiB,
    });
    expect(result).toEqual({ fetchedBytes: content.length, complete: true });
    expect(upstream.most).toBe(4);
    expect(upstream.active).toBe(0);
    expect(upstream.opens.every((range) => range.end - range.start + 1 <= 256 * KiB)).toBe(true);
    expect(entry.recorded).toEqual([{ start: 0, end: content.length - 1 }]);
    expect((await readAll(reader, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    await reader.close();
  });

  it('fetch one chunk at a time with one thread, and skip what the entry holds', async () => {
    const content = patternBytes(MiB);
    const { store, reader, entry } = await entryOf(content);
    await readAll(reader, { start: 0, end: 300 * KiB - 1 });
    const upstream = countingSource(content);
    const result = await fillRanges(entry, store, upstream, [{ start: 0, end: content.length - 1 }], {
      signal: never,
      threads: 1,
      chunkBytes: 256 * KiB,
    });
    expect(upstream.most).toBe(1);
    expect(result.fetchedBytes).toBe(content.length - 300 * KiB);
    expect(upstream.opens[0]).toEqual({ start: 300 * KiB, end: 512 * KiB - 1 });
    await reader.close();
  });
  it('are cut short where a reader seeks far ahead of their progress, so the reader does not wait', async () => {
    const content = patternBytes(8 * MiB, 5);
    const { store, reader, entry } = await entryOf(content);
    const slow = memorySource(content, { chunkBytes: 32 * KiB, delayMs: 3 });
    const filling = fillRanges(entry, store, slow, [{ start: 0, end: content.length - 1 }], {
      signal: never,
      threads: 1,
      chunkBytes: 8 * MiB,
    });
    await waitUntil(() => entry.fills.ranges.length === 1 && slow.served > 0, 'the fill to start');
    const seek = { start: 6 * MiB, end: 6 * MiB + 64 * KiB - 1 };
    expect((await readAll(reader, seek)).equals(content.subarray(seek.start, seek.end + 1))).toBe(true);
    const result = await filling;
    expect(result.fetchedBytes).toBeLessThanOrEqual(6 * MiB);
    expect(covers(entry.recorded, seek)).toBe(true);
    expect(covers(entry.recorded, { start: 0, end: result.fetchedBytes - 1 })).toBe(true);
    await reader.close();
  });
});

describe('the read-ahead loop', () => {
  it('keeps the window ahead of the position filled, waits under disk pressure, stops when told', async () => {
    const content = patternBytes(4 * MiB);
    const { store, reader, entry } = await entryOf(content);
    let use = 0.95;
    const upstream = countingSource(content, 0);
    const loop = new ReadAheadLoop(entry, store, upstream, {
      windowBytes: MiB,
      threads: 2,
      chunkBytes: 256 * KiB,
      pressure: new DiskPressure(() => use),
      pollMs: 5,
    });
    loop.follow(512 * KiB);
    await waitUntil(() => loop.active, 'the loop to start');
    expect(upstream.served).toBe(0);
    use = 0.5;
    await waitUntil(() => !loop.active, 'the window to be filled');
    expect(entry.recorded).toEqual([{ start: 512 * KiB, end: 1536 * KiB - 1 }]);
    expect(upstream.served).toBe(MiB);
    // Moving on fetches only the new part of the window.
    loop.follow(MiB);
    await waitUntil(() => covers(entry.recorded, { start: MiB, end: 2 * MiB - 1 }), 'the moved window');
    await waitUntil(() => !loop.active, 'the loop to rest');
    expect(upstream.served).toBe(1536 * KiB);
    expect(totalBytes(entry.recorded)).toBe(1536 * KiB);
    await loop.stop();
    loop.follow(3 * MiB);
    expect(loop.active).toBe(false);
    await reader.close();
  });
});
