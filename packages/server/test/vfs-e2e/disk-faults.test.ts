import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryKey } from '../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../src/services/play-agent/vfs/cached-source.js';
import { totalBytes } from '../../src/services/play-agent/vfs/range-set.js';
import { readRange } from '../../src/services/play-agent/vfs/read-range.js';
import { VfsCache } from '../../src/services/play-agent/vfs/vfs-cache.js';
import { linkIdle, recordedRanges, settled } from './cache-fixture.js';
import { serveMedia } from './media-server.js';
import { mediaSource } from './play-source.js';
import { startVfsOrigin, type VfsOrigin } from './vfs-origin.js';

/*
 * Disk faults on the play-agent side while it reads the WebDAV origin over the slow link: the cache disk
 * fills up mid-stream (a 2 MiB tmpfs), and the process filling the cache is killed with SIGKILL.
 */

const MiB = 1024 * 1024;
const here = path.dirname(fileURLToPath(import.meta.url));
const READ_AHEAD = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'READ_AHEAD' as const };
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-e2e-faults-'));
let origin: VfsOrigin;

beforeAll(async () => {
  origin = await startVfsOrigin({ latencyMs: 15, bytesPerSecond: 4 * MiB });
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('a full cache disk mid-stream', () => {
  const disk = path.join(root, 'small-disk');
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
  });

  it('gives the client every byte, and turns the entry into pass-through', async () => {
    const content = randomBytes(4 * MiB);
    writeFileSync(path.join(origin.davDir, 'big.bin'), content);
    // The ledger allows far more than the disk holds: the write itself hits ENOSPC.
    const cache = await VfsCache.open({ ...READ_AHEAD, capacityBytes: 256 * MiB }, path.join(disk, 'cache'));
    const server = await serveMedia((file) => mediaSource(origin, cache, file));
    // Held open for the whole test, so the entry (and its state) stays the same object.
    const holder = mediaSource(origin, cache, 'big.bin');
    try {
      if (!(holder instanceof CachedSource)) throw new Error('the source is not behind the cache');
      const entry = await holder.cacheEntry(new AbortController().signal);

      const response = await fetch(server.url('big.bin'));
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
      await settled(cache, origin.proxy, 1);
      expect(entry.passThrough).toBe(true);
      expect(entry.writeError).toBe('ENOSPC');
      expect(entry.cachedBytes).toBeGreaterThan(0);
      expect(entry.cachedBytes).toBeLessThan(2 * MiB);

      // While it stays open nothing more is written, and a reader still gets every byte.
      const recorded = entry.cachedBytes;
      const before = origin.proxy.stats.getBytes;
      expect((await readRange(holder, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
      expect(entry.cachedBytes).toBe(recorded);
      expect(origin.proxy.stats.getBytes - before).toBe(content.length - recorded);
    } finally {
      await holder.close();
      await server.close();
      await cache.stop();
    }
  });
});

describe('a process killed while it fills the cache', () => {
  it('answers correctly after the restart, fetching again what it had not recorded', async () => {
    const size = 6 * MiB;
    const content = randomBytes(size);
    writeFileSync(path.join(origin.davDir, 'crash.bin'), content);
    const directory = path.join(root, 'crash-cache');
    // A slower link leaves seconds between the child's report and the end of its fill, even under load.
    origin.proxy.set({ bytesPerSecond: 2 * MiB });
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(here, 'fill-child.ts'),
        origin.storageUrl,
        origin.serviceToken,
        origin.mount.id,
        'crash.bin',
        directory,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (data: Buffer) => {
        text += data.toString();
        if (text.includes('\n')) resolve(text.trim());
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it reported`)));
    });
    child.kill('SIGKILL');
    await exited;
    origin.proxy.set({ bytesPerSecond: 4 * MiB });
    expect(line).toMatch(/^filling \d+ \d+$/);

    const sourceId = `${origin.mount.id}:crash.bin`;
    const recorded = await recordedRanges(directory, sourceId, size);
    expect(totalBytes(recorded)).toBeGreaterThanOrEqual(MiB);
    expect(totalBytes(recorded)).toBeLessThan(size);
    const data = await readFile(path.join(directory, entryKey(sourceId), 'data'));
    for (const range of recorded) {
      expect(
        data.subarray(range.start, range.end + 1).equals(content.subarray(range.start, range.end + 1)),
      ).toBe(true);
    }

    // What the killed child had asked for may still be on its way over the link.
    await linkIdle(origin.proxy);
    const cache = await VfsCache.open(READ_AHEAD, directory);
    try {
      const before = origin.proxy.stats.getBytes;
      const source = mediaSource(origin, cache, 'crash.bin');
      try {
        expect((await readRange(source, { start: 0, end: size - 1 })).equals(content)).toBe(true);
      } finally {
        await source.close();
      }
      expect(origin.proxy.stats.getBytes - before).toBe(size - totalBytes(recorded));
    } finally {
      await cache.stop();
    }
  });
});
