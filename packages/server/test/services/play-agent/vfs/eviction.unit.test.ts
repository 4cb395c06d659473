import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore, entryKey } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { planEviction } from '../../../../src/services/play-agent/vfs/eviction.js';
import { PeriodicTask } from '../../../../src/services/play-agent/vfs/periodic-task.js';
import { waitUntil } from '../../../support/wait.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

const KiB = 1024;
const HOUR = 3_600_000;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-evict-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the eviction plan', () => {
  const entries = [
    { key: 'a', bytes: 100, lastAccessAt: 1000, inUse: false },
    { key: 'b', bytes: 100, lastAccessAt: 2000, inUse: true },
    { key: 'c', bytes: 100, lastAccessAt: 3000, inUse: false },
    { key: 'd', bytes: 100, lastAccessAt: 4000, inUse: false },
  ];

  it('removes least recently used entries until the wanted bytes fit, never one in use', () => {
    const plan = planEviction({
      entries,
      held: 400,
      capacity: 400,
      wanted: 150,
      now: 5000,
      retentionMs: null,
    });
    expect(plan).toEqual({ expired: [], lru: ['a', 'c'], heldAfter: 200 });
    const all = planEviction({
      entries,
      held: 400,
      capacity: 100,
      wanted: 100,
      now: 5000,
      retentionMs: null,
    });
    expect(all.lru).toEqual(['a', 'c', 'd']);
    expect(all.heldAfter).toBe(100);
  });

  it('removes entries older than the retention first', () => {
    const plan = planEviction({
      entries,
      held: 400,
      capacity: 1000,
      wanted: 0,
      now: 4500,
      retentionMs: 2000,
    });
    expect(plan.expired).toEqual(['a']);
    expect(plan.lru).toEqual([]);
  });
});

async function fill(store: CacheStore, id: string, bytes: number): Promise<CachedSource> {
  const content = patternBytes(bytes, id.length + 1);
  const source = new CachedSource(memorySource(content), store, {
    sourceId: id,
    name: id,
    writable: () => [{ start: 0, end: bytes - 1 }],
    reserveBytes: 16 * KiB,
  });
  expect((await readAll(source, { start: 0, end: bytes - 1 })).equals(content)).toBe(true);
  return source;
}

describe('the store', () => {
  it('evicts by capacity (LRU) and by age, keeps entries in use, refuses deleting them', async () => {
    let now = 1_000_000;
    const store = await CacheStore.open({
      directory: path.join(root, 'lru'),
      capacityBytes: 300 * KiB,
      now: () => now,
    });
    for (const id of ['one', 'two', 'three']) {
      await (await fill(store, id, 100 * KiB)).close();
      now += 1000;
    }
    expect(store.usage()).toMatchObject({ usedBytes: 300 * KiB, entries: 3 });
    // "one" is oldest but playing now: the next fill evicts "two", the least recently used free entry.
    const playing = await fill(store, 'one', 100 * KiB);
    now += 1000;
    await (await fill(store, 'four', 100 * KiB)).close();
    const names = store
      .entries()
      .map((entry) => entry.name)
      .sort();
    expect(names).toEqual(['four', 'one', 'three']);
    expect(await store.remove(entryKey('one'))).toBe('in-use');
    expect(await store.removeAll()).toEqual({ removed: 2, inUse: 1 });
    await playing.close();
    expect(await store.remove(entryKey('one'))).toBe('removed');
    expect(await readdir(store.directory)).toEqual([]);
    expect(store.usage()).toMatchObject({ usedBytes: 0, inFlightBytes: 0, entries: 0 });

    // Age: only entries unused for longer than the retention go.
    await (await fill(store, 'old', 10 * KiB)).close();
    now += 5 * HOUR;
    await (await fill(store, 'new', 10 * KiB)).close();
    const held = await fill(store, 'held', 10 * KiB);
    now += 2 * HOUR;
    expect(await store.evict(3 * HOUR)).toEqual({ expired: [entryKey('old')], lru: [] });
    now += 5 * HOUR;
    const second = await store.evict(3 * HOUR);
    expect(second.expired).toEqual([entryKey('new')]);
    expect(store.entries().map((entry) => entry.name)).toEqual(['held']);
    await held.close();
  });

  it('finds its entries again after a restart, with their last access', async () => {
    const directory = path.join(root, 'restart');
    const first = await CacheStore.open({ directory, capacityBytes: MiBs(1), now: () => 5000 });
    await (await fill(first, 'kept', 64 * KiB)).close();
    const second = await CacheStore.open({ directory, capacityBytes: MiBs(1) });
    expect(second.entries()).toEqual([
      expect.objectContaining({ name: 'kept', cachedBytes: 64 * KiB, lastAccessAt: 5000, inUse: false }),
    ]);
    expect(second.usage().usedBytes).toBe(64 * KiB);
  });
});

function MiBs(count: number): number {
  return count * 1024 * 1024;
}

describe('the periodic cleanup', () => {
  it('runs at its interval, never twice at once, and stops', async () => {
    let runs = 0;
    let active = 0;
    let overlap = false;
    const task = new PeriodicTask(async () => {
      active++;
      if (active > 1) overlap = true;
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 15));
      active--;
    }, 5);
    task.start();
    await waitUntil(() => runs >= 3, 'three cleanup runs');
    await task.stop();
    const after = runs;
    await new Promise((resolve) => setImmediate(resolve));
    expect(overlap).toBe(false);
    expect(runs).toBe(after);
  });
});
