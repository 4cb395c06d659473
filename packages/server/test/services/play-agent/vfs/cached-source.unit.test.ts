import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalFile } from '../../../../src/services/play-agent/stream/sources.js';
import { CacheStore, entryKey } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { entryBadge } from '../../../../src/services/play-agent/vfs/entry-badge.js';
import type { RangeSet } from '../../../../src/services/play-agent/vfs/range-set.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-reader-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;

async function newStore(capacityBytes = 256 * MiB, now?: () => number): Promise<CacheStore> {
  return CacheStore.open({ directory: path.join(root, `store-${++folders}`), capacityBytes, now });
}

function whole(size: number): () => RangeSet {
  return () => [{ start: 0, end: size - 1 }];
}

describe('the cached reader', () => {
  it('serves random ranges byte-exact, the second time from disk only', async () => {
    const content = patternBytes(3 * MiB + 123);
    const store = await newStore();
    const upstream = memorySource(content, { chunkBytes: 100_000 });
    const source = new CachedSource(upstream, store, {
      sourceId: 'mount-a:/movie.mkv',
      name: 'movie.mkv',
      writable: whole(content.length),
      chunkBytes: 70_000,
      flushBytes: 256 * 1024,
    });
    const requests = [
      { start: 0, end: 999_999 },
      { start: 500_000, end: 1_500_000 },
      { start: content.length - 10, end: content.length - 1 },
      { start: 2_000_000, end: content.length - 1 },
      { start: 0, end: content.length - 1 },
    ];
    for (const range of requests) {
      expect((await readAll(source, range)).equals(content.subarray(range.start, range.end + 1))).toBe(true);
    }
    await source.close();
    // Everything was read once; the cache now holds the whole file, recorded.
    const fetched = upstream.served;
    expect(fetched).toBeLessThan(content.length * 1.5);
    const again = memorySource(content);
    const second = new CachedSource(
      again,
      await CacheStore.open({ directory: store.directory, capacityBytes: 256 * MiB }),
      {
        sourceId: 'mount-a:/movie.mkv',
        name: 'movie.mkv',
        writable: whole(content.length),
      },
    );
    expect((await readAll(second, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    expect(again.served).toBe(0);
    await second.close();
  });

  it('stitches any ranges over any cached state (property)', async () => {
    const content = patternBytes(200_000, 7);
    const rangeArb = fc
      .tuple(fc.integer({ min: 0, max: content.length - 1 }), fc.integer({ min: 1, max: 60_000 }))
      .map(([start, length]) => ({ start, end: Math.min(content.length - 1, start + length - 1) }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(rangeArb, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 9000 }),
        async (ranges, chunk) => {
          const store = await newStore();
          const source = new CachedSource(memorySource(content, { chunkBytes: chunk }), store, {
            sourceId: 'x',
            name: 'x',
            // Only some bytes may be kept, as SMART_STARTUP does.
            writable: () => [
              { start: 0, end: 49_999 },
              { start: 150_000, end: 199_999 },
            ],
            chunkBytes: 3000,
            flushBytes: 5000,
          });
          for (const range of ranges) {
            const got = await readAll(source, range);
            expect(got.equals(content.subarray(range.start, range.end + 1))).toBe(true);
          }
          const entry = await source.cacheEntry(new AbortController().signal);
          for (const range of entry.recorded) {
            expect(range.start >= 150_000 || range.end <= 49_999).toBe(true);
          }
          await source.close();
        },
      ),
      { numRuns: 15 },
    );
  });

  it('takes a local file as its upstream although its buffers are reused', async () => {
    const content = patternBytes(2 * MiB + 5, 3);
    const file = path.join(root, 'local.bin');
    writeFileSync(file, content);
    const opened = await openLocalFile(file, null, { chunkSize: 64 * 1024 });
    if (!opened.ok) throw new Error('the file did not open');
    const store = await newStore();
    const source = new CachedSource(opened.source, store, {
      sourceId: 'local',
      name: 'local.bin',
      writable: whole(content.length),
    });
    expect((await readAll(source, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    const entry = await source.cacheEntry(new AbortController().signal);
    await entry.flush();
    expect(entry.recorded).toEqual([{ start: 0, end: content.length - 1 }]);
    const data = await readFile(path.join(store.directory, entryKey('local'), 'data'));
    expect(data.equals(content)).toBe(true);
    await source.close();
  });

  it('starts the entry anew when the file changed (size or mtime)', async () => {
    const first = patternBytes(300_000, 1);
    const store = await newStore();
    const options = { sourceId: 'changing', name: 'changing', writable: whole(300_000) };
    const a = new CachedSource(memorySource(first), store, options);
    await readAll(a, { start: 0, end: first.length - 1 });
    await a.close();
    const second = patternBytes(300_000, 2);
    const upstream = memorySource(second, { mtime: new Date(1_800_000_000_000) });
    const b = new CachedSource(upstream, store, options);
    expect((await readAll(b, { start: 0, end: second.length - 1 })).equals(second)).toBe(true);
    expect(upstream.served).toBe(second.length);
    // A third version while the second still streams: it is read uncached, the second keeps its entry.
    const third = patternBytes(300_000, 3);
    const c = new CachedSource(memorySource(third, { mtime: new Date(1_900_000_000_000) }), store, options);
    expect((await readAll(c, { start: 0, end: third.length - 1 })).equals(third)).toBe(true);
    expect((await readAll(b, { start: 0, end: second.length - 1 })).equals(second)).toBe(true);
    expect(upstream.served).toBe(second.length);
    await c.close();
    await b.close();
  });

  it('goes on as pass-through when the disk is full (ENOSPC), the reader gets every byte', async () => {
    const content = patternBytes(MiB, 9);
    const store = await newStore();
    // The entry's data file is /dev/full: every write fails with ENOSPC, as on a full disk.
    const folder = path.join(store.directory, entryKey('full'));
    await mkdir(folder, { recursive: true });
    await symlink('/dev/full', path.join(folder, 'data'));
    const meta = {
      version: 1,
      sourceId: 'full',
      name: 'full',
      size: content.length,
      mtimeMs: 1_700_000_000_000,
      etag: null,
    };
    await writeFile(
      path.join(folder, 'meta.json'),
      JSON.stringify({ ...meta, createdAt: 1, lastAccessAt: 1 }),
    );
    const source = new CachedSource(memorySource(content, { chunkBytes: 50_000 }), store, {
      sourceId: 'full',
      name: 'full',
      writable: whole(content.length),
    });
    expect((await readAll(source, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    const entry = await source.cacheEntry(new AbortController().signal);
    expect(entry.passThrough).toBe(true);
    expect(entry.writeError).toBe('ENOSPC');
    expect(entry.recorded).toEqual([]);
    expect(
      (await readAll(source, { start: 1000, end: 200_000 })).equals(content.subarray(1000, 200_001)),
    ).toBe(true);
    expect(entryBadge(store.entries()[0]!)).toBe('PLAYING');
    await source.close();
    expect(store.usage().inFlightBytes).toBe(0);
    // Failed until a later write succeeds; the failure outlives a restart (it is in meta.json).
    expect(entryBadge(store.entries()[0]!)).toBe('CACHE_FAILED');
    const reopened = await CacheStore.open({ directory: store.directory, capacityBytes: 256 * MiB });
    expect(reopened.entries()[0]?.writeError).toBe('ENOSPC');
  });

  it('writes nothing beyond the capacity when every other entry is in use', async () => {
    const content = patternBytes(3 * MiB, 4);
    const store = await newStore(2 * MiB);
    const source = new CachedSource(memorySource(content), store, {
      sourceId: 'big',
      name: 'big',
      writable: whole(content.length),
      reserveBytes: 256 * 1024,
    });
    expect((await readAll(source, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    const entry = await source.cacheEntry(new AbortController().signal);
    await entry.flush();
    expect(entry.cachedBytes).toBeLessThanOrEqual(2 * MiB);
    expect(store.usage().usedBytes).toBeLessThanOrEqual(2 * MiB);
    await source.close();
  });
});
