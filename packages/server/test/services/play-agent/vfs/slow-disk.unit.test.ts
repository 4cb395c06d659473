import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { memorySource, patternBytes, readAll } from './memory-source.js';

/*
 * The cache disk sits off the stream's path: a client gets the upstream bytes as they arrive even while
 * the entry's writes do not complete (a disk stalled by syncs under load). Only the bytes that did reach
 * the disk are recorded.
 */

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-slow-disk-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a cache disk that does not keep up', () => {
  it('never holds the client: every byte is delivered while the writes wait, then what landed is recorded', async () => {
    const content = patternBytes(24 * MiB, 11);
    const store = await CacheStore.open({ directory: path.join(root, 'store'), capacityBytes: 256 * MiB });
    const source = new CachedSource(memorySource(content, { chunkBytes: 256 * 1024 }), store, {
      sourceId: 'slow',
      name: 'slow',
      writable: () => [{ start: 0, end: content.length - 1 }],
    });
    const entry = await source.cacheEntry(new AbortController().signal);
    // The disk takes no write until the gate opens.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const write = entry.write.bind(entry);
    let writesAsked = 0;
    entry.write = (position, bytes) => {
      writesAsked++;
      return gate.then(() => write(position, bytes));
    };
    try {
      // Read as a stream reads: every byte, before the body closes (a close waits for queued writes).
      const body = await source.open({ start: 0, end: content.length - 1 }, new AbortController().signal);
      const read = (async () => {
        const parts: Buffer[] = [];
        for (let chunk = await body.read(); chunk !== null; chunk = await body.read()) {
          parts.push(Buffer.from(chunk));
          body.release(chunk);
        }
        return Buffer.concat(parts);
      })();
      // Generous: the whole read is memory to memory; with the disk on the read path it never ends.
      const outcome = await Promise.race([
        read.then((bytes) => ({ bytes })),
        new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 60_000).unref()),
      ]);
      expect(outcome).not.toBe('held');
      if (outcome === 'held') return;
      expect(outcome.bytes.equals(content)).toBe(true);
      expect(writesAsked).toBeGreaterThan(0);
      expect(entry.cachedBytes).toBe(0);
    } finally {
      openGate();
      await source.close();
    }
    // The writes queued before the disk fell behind land and are recorded, byte-exact; the rest is missing.
    expect(entry.closed).toBe(true);
    const reopened = await CacheStore.open({ directory: store.directory, capacityBytes: 256 * MiB });
    const again = new CachedSource(memorySource(content), reopened, {
      sourceId: 'slow',
      name: 'slow',
      writable: () => [],
    });
    try {
      const recorded = (await again.cacheEntry(new AbortController().signal)).recorded;
      expect(recorded[0]?.start).toBe(0);
      const kept = recorded.reduce((sum, range) => sum + range.end - range.start + 1, 0);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(content.length);
      for (const range of recorded) {
        expect((await readAll(again, range)).equals(content.subarray(range.start, range.end + 1))).toBe(true);
      }
    } finally {
      await again.close();
    }
  });
});
