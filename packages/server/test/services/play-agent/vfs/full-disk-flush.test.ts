import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

/*
 * A cache disk that fills up while an upstream delivers faster than the disk writes: the bytes written
 * before the disk filled up are recorded (the flush after each `flushBytes` is queued behind exactly those
 * writes, not behind every write the reader queued meanwhile). Integration tier: it mounts a 2 MiB tmpfs.
 */

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-full-disk-'));
const disk = path.join(root, 'disk');
let mounted = false;

beforeAll(() => {
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', disk], { stdio: 'pipe' });
    mounted = true;
  } catch (error) {
    // CI runs as root: a missing mount is a broken environment, never a reason to skip.
    throw new Error(`this test needs a 2 MiB tmpfs (run as root): mount failed: ${String(error)}`);
  }
});

afterAll(() => {
  if (mounted) execFileSync('umount', [disk]);
  rmSync(root, { recursive: true, force: true });
});

describe('a cache disk that fills up under a fast upstream', () => {
  it('records the bytes written before the disk filled up, then passes through', async () => {
    const content = patternBytes(4 * MiB, 7);
    const store = await CacheStore.open({ directory: path.join(disk, 'cache'), capacityBytes: 256 * MiB });
    // An upstream in memory hands out its chunks at once: the reader queues writes faster than they land.
    const source = new CachedSource(memorySource(content, { chunkBytes: 64 * 1024 }), store, {
      sourceId: 'fast',
      name: 'fast',
      writable: () => [{ start: 0, end: content.length - 1 }],
    });
    try {
      expect((await readAll(source, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
      const entry = await source.cacheEntry(new AbortController().signal);
      expect(entry.passThrough).toBe(true);
      expect(entry.writeError).toBe('ENOSPC');
      expect(entry.recorded[0]?.start).toBe(0);
      expect(entry.cachedBytes).toBeGreaterThanOrEqual(MiB);
      expect(entry.cachedBytes).toBeLessThan(2 * MiB);
    } finally {
      await source.close();
    }
  });
});
