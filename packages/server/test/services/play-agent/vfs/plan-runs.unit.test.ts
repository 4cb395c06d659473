import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import type { ByteRange } from '../../../../src/platform/http/file-delivery/range.js';
import type { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { HEAD_PROBE_BYTES } from '../../../../src/services/play-agent/vfs/container-index.js';
import { missing } from '../../../../src/services/play-agent/vfs/range-set.js';
import { completeStartup, STARTUP_RUNS } from '../../../../src/services/play-agent/vfs/startup-source.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { waitUntil } from '../../../support/wait.js';
import { memorySource, patternBytes } from './memory-source.js';

/**
 * SMART_STARTUP runs of plan bytes (cached-body.ts `finishPlanRuns`, docs/vfs-cache.md "Upstream runs of
 * a stream"): asked whole, finished into the entry when the reader leaves, and skipped by the startup
 * job while a reader fetches them. Each test checks that no head byte is fetched twice (the index
 * search's own first read of HEAD_PROBE_BYTES aside).
 */

const MiB = 1024 * 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-plan-runs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => path.join(root, `store-${++folders}`);

// BALANCED without library facts: an 8 MiB head and a 4 MiB basic tail (no container index).
const HEAD = DEFAULT_VFS_CACHE_CONFIG.minHeadBytes;
const config = { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'SMART_STARTUP' as const };
const target = { sourceId: 'm:/film.bin', name: 'film.bin' };

/** Upstream opens that ask again for head bytes after the index search's first read. */
function headRefetches(opens: readonly ByteRange[], streamRun: ByteRange): ByteRange[] {
  return opens.filter((range) => range !== streamRun && range.start < HEAD && range.end >= HEAD_PROBE_BYTES);
}

/** The stream asked for the whole head in one run, and nobody asked for its bytes again. */
function expectOneHeadRun(opens: readonly ByteRange[]): void {
  const streamRun = opens.find((range) => range.start === 0 && range.end > HEAD_PROBE_BYTES);
  expect(streamRun).toEqual({ start: 0, end: HEAD - 1 });
  expect(headRefetches(opens, streamRun!)).toEqual([]);
}

async function idle(cache: VfsCache): Promise<void> {
  await waitUntil(
    () =>
      cache.downloads.runningCount + cache.downloads.waitingCount === 0 &&
      cache.store.entries().every((entry) => !entry.inUse),
    'the startup job to end and the entry to be released',
  );
}

describe('SMART_STARTUP runs of plan bytes', () => {
  it('a reader that leaves early leaves its run of head bytes to be finished into the entry', async () => {
    const content = patternBytes(40 * MiB);
    const upstream = memorySource(content);
    const cache = await VfsCache.open(config, folder(), { probeTool: null });
    try {
      const source = cache.wrap(upstream, target) as CachedSource;
      const controller = new AbortController();
      const body = await source.open({ start: 0, end: content.length - 1 }, controller.signal);
      expect((await body.read())?.length).toBeGreaterThan(0);
      // The client leaves, as the sender tells it: the signal, then close().
      controller.abort();
      await body.close();
      await source.close();
      await source.released;
      await idle(cache);

      // One request for the whole head, not a short first run; the startup job did not fetch it again.
      expectOneHeadRun(upstream.opens);
      const [entry] = cache.store.entries();
      expect(missing(entry!.ranges, { start: 0, end: HEAD - 1 })).toEqual([]);
    } finally {
      await cache.stop();
    }
  });

  it('a reader arriving just after another left waits for the bytes that one fetched, still on their way to disk', async () => {
    const content = patternBytes(40 * MiB);
    const upstream = memorySource(content);
    const cache = await VfsCache.open(config, folder(), { probeTool: null });
    try {
      const source = cache.wrap(upstream, target) as CachedSource;
      const entry = await source.cacheEntry(new AbortController().signal);
      // The disk takes no write until the gate opens (a disk busy with syncs).
      let openGate!: () => void;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      const write = entry.write.bind(entry);
      entry.write = (position, bytes) => gate.then(() => write(position, bytes));

      const first = new AbortController();
      const probe = await source.open({ start: 0, end: content.length - 1 }, first.signal);
      // ffprobe reads the first 3 MiB and leaves; a player's start opens the file right after.
      for (let read = 0; read < 3 * MiB;) read += (await probe.read())?.length ?? Infinity;
      first.abort();
      await probe.close();
      const start = await source.open({ start: 0, end: HEAD + MiB - 1 }, new AbortController().signal);
      const firstChunk = start.read();
      // Let the second reader decide where its first bytes come from, then let the disk go on.
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      openGate();
      const received: Buffer[] = [];
      for (let chunk = await firstChunk; chunk; chunk = await start.read()) received.push(Buffer.from(chunk));
      expect(Buffer.concat(received).equals(content.subarray(0, HEAD + MiB))).toBe(true);
      await start.close();
      await source.close();
      await source.released;
      await idle(cache);

      // Neither the bytes the first reader had read nor the rest of its run were asked for again.
      expectOneHeadRun(upstream.opens);
    } finally {
      await cache.stop();
    }
  });

  it("a reader needing bytes another reader's run is fetching asks for a short run, not the rest of the plan", async () => {
    const content = patternBytes(40 * MiB);
    // The first reader's run stalls after 1 MiB (a client that stopped reading without leaving).
    const upstream = memorySource(content, { stallAfter: MiB });
    const cache = await VfsCache.open(config, folder(), { probeTool: null });
    try {
      const source = cache.wrap(upstream, target) as CachedSource;
      const first = await source.open({ start: 0, end: content.length - 1 }, new AbortController().signal);
      expect((await first.read())?.length).toBeGreaterThan(0);
      const [firstRun] = upstream.opens;
      expect(firstRun).toEqual({ start: 0, end: HEAD - 1 });
      // The second reader's own runs of the claimed head: a short first one.
      // A player's start: the rest of the file from there.
      const second = await source.open(
        { start: 2 * MiB, end: content.length - 1 },
        new AbortController().signal,
      );
      const opensBefore = upstream.opens.length;
      const pending = second.read();
      await waitUntil(() => upstream.opens.length > opensBefore, 'the second reader to ask upstream');
      const run = upstream.opens[opensBefore]!;
      expect(run.start).toBe(2 * MiB);
      expect(run.end - run.start + 1).toBeLessThanOrEqual(STARTUP_RUNS.firstBytes);
      void pending.catch(() => undefined);
    } finally {
      await cache.stop();
    }
  });

  it('the startup job skips the head bytes a reader is still fetching', async () => {
    const content = patternBytes(40 * MiB);
    // A slow link: the reader's run is still under way when the job plans its fill.
    const upstream = memorySource(content, { delayMs: 2 });
    const cache = await VfsCache.open(config, folder(), { probeTool: null });
    try {
      const source = cache.wrap(upstream, target) as CachedSource;
      const controller = new AbortController();
      const body = await source.open({ start: 0, end: HEAD + MiB - 1 }, controller.signal);
      let read = (await body.read())?.length ?? 0;
      await completeStartup(cache.context(), upstream, target, new AbortController().signal);
      for (let chunk = await body.read(); chunk; chunk = await body.read()) read += chunk.length;
      expect(read).toBe(HEAD + MiB);
      await body.close();
      await source.close();
      await idle(cache);

      expectOneHeadRun(upstream.opens);
      const [entry] = cache.store.entries();
      expect(missing(entry!.ranges, { start: 0, end: HEAD - 1 })).toEqual([]);
    } finally {
      await cache.stop();
    }
  });
});
