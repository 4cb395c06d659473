import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheStore } from '../../../../src/services/play-agent/vfs/cache-store.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { findContainerIndex, type ReadAt } from '../../../../src/services/play-agent/vfs/container-index.js';
import { totalBytes } from '../../../../src/services/play-agent/vfs/range-set.js';
import { planStartup, type StartupPlan } from '../../../../src/services/play-agent/vfs/startup-plan.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { covers, intersect } from '../../../../src/services/play-agent/vfs/range-set.js';
import { waitUntil } from '../../../support/wait.js';
import { makeVideo, mp4TopLevelAtoms } from '../../../support/media-fixtures.js';
import { memorySource, readAll } from './memory-source.js';

const KiB = 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-startup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const files = {
  faststart: path.join(root, 'head.mp4'),
  tail: path.join(root, 'tail.mp4'),
  mkv: path.join(root, 'movie.mkv'),
};

beforeAll(async () => {
  await Promise.all([
    makeVideo(files.faststart, { seconds: 20, languages: ['eng'], format: 'mp4', moov: 'head' }),
    makeVideo(files.tail, { seconds: 20, languages: ['eng'], format: 'mp4', moov: 'end' }),
    makeVideo(files.mkv, { seconds: 20, languages: ['eng', 'fra'], format: 'mkv' }),
  ]);
}, 120_000);

function reader(content: Buffer): { readAt: ReadAt; reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    readAt: async (range) => {
      reads.push(range.end - range.start + 1);
      return content.subarray(range.start, range.end + 1);
    },
  };
}

/** Offset and size of each top-level MP4 box, to compare with the finder. */
function boxes(content: Buffer): { type: string; start: number; end: number }[] {
  const out: { type: string; start: number; end: number }[] = [];
  let offset = 0;
  while (offset + 8 <= content.length) {
    const length = content.readUInt32BE(offset);
    out.push({
      type: content.toString('latin1', offset + 4, offset + 8),
      start: offset,
      end: offset + length - 1,
    });
    offset += length;
  }
  return out;
}

describe('finding the container index', () => {
  it('finds moov at the head of a faststart MP4 and at the end of a plain one', async () => {
    expect((await mp4TopLevelAtoms(files.faststart)).indexOf('moov')).toBeLessThan(
      (await mp4TopLevelAtoms(files.faststart)).indexOf('mdat'),
    );
    expect((await mp4TopLevelAtoms(files.tail)).at(-1)).toBe('moov');
    for (const file of [files.faststart, files.tail]) {
      const content = await readFile(file);
      const { readAt, reads } = reader(content);
      const found = await findContainerIndex(readAt, content.length);
      const moov = boxes(content).find((box) => box.type === 'moov')!;
      expect(found).toEqual({ container: 'mp4', index: [{ start: moov.start, end: moov.end }] });
      // A few small reads: the head probe and one 16-byte header per top-level box.
      expect(reads.length).toBeLessThanOrEqual(1 + boxes(content).length);
    }
  });

  it('finds the Cues and Tags of an MKV through its SeekHead', async () => {
    const content = await readFile(files.mkv);
    const found = await findContainerIndex(reader(content).readAt, content.length);
    expect(found.container).toBe('mkv');
    const ids = found.index.map((range) => content.readUInt32BE(range.start).toString(16));
    expect(ids).toContain('1c53bb6b');
    // Every range is one whole element: it ends where the file or the next level-1 element begins.
    for (const range of found.index) expect(range.end).toBeLessThan(content.length);
    const cues = found.index.find((range) => content.readUInt32BE(range.start) === 0x1c53bb6b)!;
    expect(cues.start).toBeGreaterThan(content.length / 2);
  });

  it('says unknown for other files', async () => {
    const content = Buffer.alloc(100_000, 7);
    expect(await findContainerIndex(reader(content).readAt, content.length)).toEqual({
      container: 'unknown',
      index: [],
    });
  });
});

describe('the SMART_STARTUP plan of real files', () => {
  const expert = {
    minHeadBytes: 64 * KiB,
    minTailBytes: 64 * KiB,
    perFileHardCapBytes: 16 * 1024 * KiB,
    probeBudgetBytes: 0,
  };

  it('keeps about 8 s of head and the tail moov, and caches only that through the reader', async () => {
    const content = await readFile(files.tail);
    const store = await CacheStore.open({
      directory: path.join(root, 'cache'),
      capacityBytes: 64 * 1024 * KiB,
    });
    const upstream = memorySource(content, { chunkBytes: 16 * KiB });
    let plan: ReturnType<typeof planStartup> | null = null;
    const source = new CachedSource(upstream, store, {
      sourceId: 'tail.mp4',
      name: 'tail.mp4',
      // Until the plan is known, the index search's own reads are kept (they are small).
      writable: () => plan?.ranges ?? [{ start: 0, end: content.length - 1 }],
    });
    const found = await findContainerIndex((range) => readAll(source, range), content.length);
    plan = planStartup({ size: content.length, durationSeconds: 20, index: found.index, ...expert });
    expect(plan.kind).toBe('smart');
    expect(plan.headBytes).toBe(Math.max(64 * KiB, Math.ceil((((content.length * 8) / 20) * 8) / 8)));
    const moov = boxes(content).find((box) => box.type === 'moov')!;
    expect(plan.ranges.at(-1)).toEqual({ start: moov.start, end: moov.end });
    // Playback reads the whole file; the entry keeps the plan's bytes (and the index search's reads).
    await readAll(source, { start: 0, end: content.length - 1 });
    const entry = await source.cacheEntry(new AbortController().signal);
    await entry.flush();
    expect(totalBytes(entry.recorded)).toBeLessThanOrEqual(plan.bytes + 64 * KiB + 16 * 32);
    await source.close();
  });

  it('falls back to a basic head and tail without an index, all within the hard cap', () => {
    const plan = planStartup({
      size: 10_000_000,
      index: [],
      minHeadBytes: 100_000,
      minTailBytes: 50_000,
      perFileHardCapBytes: 1_000_000,
      probeBudgetBytes: 0,
    });
    expect(plan).toEqual({
      kind: 'basic',
      headBytes: 100_000,
      bytes: 150_000,
      ranges: [
        { start: 0, end: 99_999 },
        { start: 9_950_000, end: 9_999_999 },
      ],
    });
  });
});

describe('the cache in SMART_STARTUP mode', () => {
  it('keeps the head and the index of each file, so a second open of them reads nothing upstream', async () => {
    const cache = await VfsCache.open(
      { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, minHeadBytes: 64 * KiB, minTailBytes: 64 * KiB },
      path.join(root, 'smart'),
    );
    for (const file of [files.faststart, files.tail, files.mkv]) {
      const content = await readFile(file);
      const plans: StartupPlan[] = [];
      const options = { sourceId: file, name: path.basename(file), durationSeconds: 20 };
      const first = cache.wrap(memorySource(content), { ...options, onPlan: (plan) => plans.push(plan) });
      // A player reads the head, then (once the plan knows the index) the whole file.
      await readAll(first, { start: 0, end: 4095 });
      await waitUntil(() => plans.at(-1)?.kind === 'smart', `the index of ${file}`);
      expect((await readAll(first, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
      await first.close();
      const plan = plans.at(-1)!;
      const again = memorySource(content);
      const second = cache.wrap(again, options);
      if (!(second instanceof CachedSource)) throw new Error('the cache did not wrap the source');
      const entry = await second.cacheEntry(new AbortController().signal);
      for (const range of plan.ranges) expect(covers(entry.recorded, range)).toBe(true);
      // Nothing outside the plan but the index search's few small reads.
      const outside = entry.recorded.flatMap((range) =>
        intersect([range], { start: plan.headBytes, end: content.length - 1 }),
      );
      expect(totalBytes(outside) - totalBytes(plan.ranges.slice(1))).toBeLessThanOrEqual(16 * 64);
      for (const range of plan.ranges) {
        expect((await readAll(second, range)).equals(content.subarray(range.start, range.end + 1))).toBe(
          true,
        );
      }
      expect(again.served).toBe(0);
      await second.close();
    }
    await cache.stop();
  });
});
