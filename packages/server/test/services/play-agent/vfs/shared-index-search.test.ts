import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaSource } from '../../../../src/services/play-agent/stream/sources.js';
import { CachedSource } from '../../../../src/services/play-agent/vfs/cached-source.js';
import { covers } from '../../../../src/services/play-agent/vfs/range-set.js';
import type { StartupPlan } from '../../../../src/services/play-agent/vfs/startup-plan.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { makeVideo } from '../../../support/media-fixtures.js';
import { waitUntil } from '../../../support/wait.js';
import { memorySource, readAll } from './memory-source.js';

const KiB = 1024;
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-search-'));
const file = path.join(root, 'tail.mp4');
let content: Buffer;
/** Where the `moov` box (the index, at the end of this file) starts. */
let moovStart = 0;

beforeAll(async () => {
  await makeVideo(file, { seconds: 10, languages: ['eng'], format: 'mp4', moov: 'end' });
  content = await readFile(file);
  for (let offset = 0; offset + 8 <= content.length; offset += content.readUInt32BE(offset)) {
    if (content.toString('latin1', offset + 4, offset + 8) === 'moov') moovStart = offset;
  }
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The file as an upstream whose reads at the index wait until `let()`; counts the box-header reads there. */
function gatedUpstream(): MediaSource & { let: () => void; headerReads: number } {
  const inner = memorySource(content, { chunkBytes: 16 * KiB });
  let opened!: () => void;
  const gate = new Promise<void>((resolve) => (opened = resolve));
  const source = Object.assign(Object.create(inner) as MediaSource, { let: opened, headerReads: 0 });
  source.open = async (range, signal) => {
    if (range.start === moovStart && range.end - range.start + 1 === 16) source.headerReads++;
    if (range.end >= moovStart) await gate;
    return inner.open(range, signal);
  };
  return source;
}

describe('the index search of SMART_STARTUP', () => {
  it('runs once per entry, outlives the short requests that started it; the job fills the plan; the next open plans smart at once', async () => {
    const cache = await VfsCache.open(
      { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, minHeadBytes: 64 * KiB, minTailBytes: 16 * KiB },
      path.join(root, 'cache'),
      { probeTool: null },
    );
    try {
      const options = { sourceId: 'mount:/tail.mp4', name: 'tail.mp4', durationSeconds: 10 };
      const upstream = gatedUpstream();
      const plans: StartupPlan[] = [];
      // Three short requests (a first-byte check each), all done while the search waits for the index.
      for (let request = 0; request < 3; request++) {
        const source = cache.wrap(upstream, { ...options, onPlan: (plan) => plans.push(plan) });
        expect((await readAll(source, { start: 0, end: 1023 })).equals(content.subarray(0, 1024))).toBe(true);
        await source.close();
      }
      await waitUntil(() => upstream.headerReads > 0, 'the search to reach the index');
      expect(plans.every((plan) => plan.kind === 'basic')).toBe(true);
      upstream.let();
      await waitUntil(
        () =>
          plans.at(-1)?.kind === 'smart' &&
          cache.downloads.runningCount + cache.downloads.waitingCount === 0 &&
          cache.store.entries().every((entry) => !entry.inUse),
        'the smart plan and the startup job to finish',
      );
      // One search for the entry: neither the later requests nor the startup job searched again.
      expect(upstream.headerReads).toBe(1);
      expect(cache.store.usage().inFlightBytes).toBe(0);

      const again = memorySource(content);
      const later: StartupPlan[] = [];
      const second = cache.wrap(again, { ...options, onPlan: (plan) => later.push(plan) });
      if (!(second instanceof CachedSource)) throw new Error('the cache did not wrap the source');
      expect((await readAll(second, { start: 0, end: 1023 })).length).toBe(1024);
      expect(again.served).toBe(0);
      // Bytes outside the plan (the head is 8 s of 10, the index starts at the moov): the saved smart plan
      // decides at once, with no basic plan and no search first.
      const middle = { start: moovStart - 2048, end: moovStart - 1025 };
      expect((await readAll(second, middle)).equals(content.subarray(middle.start, middle.end + 1))).toBe(
        true,
      );
      const entry = await second.cacheEntry(new AbortController().signal);
      await second.close();
      expect(later.map((plan) => plan.kind)).toEqual(['smart']);
      // The requests read 1 KiB each; the startup job filled the whole plan (head and index) after them.
      for (const range of later[0]!.ranges) expect(covers(entry.recorded, range)).toBe(true);
      expect(later[0]?.ranges.at(-1)?.end).toBe(content.length - 1);
      expect(again.served).toBe(1024);
    } finally {
      await cache.stop();
    }
  });
});
