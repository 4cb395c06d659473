import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { waitUntil } from '../../../support/wait.js';

/**
 * An entry stays open a while after its last reader (cache-store.ts `lingerMs`): the probe tool and a
 * player ask for a file in many requests in a row, and each one opening and closing the entry's files
 * (metadata, data, journal) cost more than reading the bytes on a warm start.
 */

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-linger-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => path.join(root, `store-${++folders}`);
const film = { sourceId: 'm:/film.mkv', name: 'film.mkv', size: 4 * MiB, mtimeMs: 1, etag: null };

describe('an entry without readers', () => {
  it('is taken as it is by the next reader within the linger time, and closed after it', async () => {
    const store = await CacheStore.open({ directory: folder(), capacityBytes: 64 * MiB, lingerMs: 300 });
    const first = await store.acquire(film);
    expect(await first.write(0, Buffer.alloc(MiB, 7))).toBe(true);
    await store.release(first);
    // Recorded at the release, though the files stay open.
    expect(first.closed).toBe(false);
    expect(first.recorded).toEqual([{ start: 0, end: MiB - 1 }]);
    expect(store.entries()[0]).toMatchObject({ inUse: false, cachedBytes: MiB });

    const second = await store.acquire(film);
    expect(second).toBe(first);
    await store.release(second);

    await waitUntil(() => first.closed, 'the entry to be closed after the linger time');
    // The close saves the last access (the entry's queue writes meta.json after marking it closed).
    const savedAccess = async () =>
      (JSON.parse(await readFile(path.join(first.folder, 'meta.json'), 'utf8')) as { lastAccessAt: number })
        .lastAccessAt;
    await waitUntil(
      async () => (await savedAccess()) === first.meta.lastAccessAt,
      'the last access to be saved',
    );
    await store.close();
  });

  it('is closed before its folder is removed, and when the store closes', async () => {
    const store = await CacheStore.open({ directory: folder(), capacityBytes: 64 * MiB, lingerMs: 60_000 });
    const removed = await store.acquire(film);
    await store.release(removed);
    expect(await store.remove(removed.key)).toBe('removed');
    expect(removed.closed).toBe(true);

    const kept = await store.acquire(film);
    await store.release(kept);
    await store.close();
    expect(kept.closed).toBe(true);
  });
});
