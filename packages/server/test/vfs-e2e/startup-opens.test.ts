import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByteRange } from '../../src/platform/http/file-delivery/range.js';
import { findContainerIndex } from '../../src/services/play-agent/vfs/container-index.js';
import { readRange } from '../../src/services/play-agent/vfs/read-range.js';
import { totalBytes } from '../../src/services/play-agent/vfs/range-set.js';
import { VfsCache } from '../../src/services/play-agent/vfs/vfs-cache.js';
import { mediaSource } from './play-source.js';
import { SMALL_SMART, recordedRanges, settled } from './cache-fixture.js';
import { rangedRead, serveMedia, type MediaServer } from './media-server.js';
import {
  ffprobe,
  makeMedia,
  MEDIA_FILES,
  startVfsOrigin,
  type MediaKind,
  type VfsOrigin,
} from './vfs-origin.js';

/*
 * A start of playback through the SMART_STARTUP cache against a real WebDAV server behind a slow link:
 * the probe tool (ffprobe) reads the file through a play-agent-like HTTP answer, then the player reads the
 * head. The second start must find the head and the container index on disk.
 */

const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-e2e-open-'));
const KINDS = Object.keys(MEDIA_FILES) as MediaKind[];
const HEAD: ByteRange = { start: 0, end: SMALL_SMART.minHeadBytes - 1 };
let origin: VfsOrigin;
let cache: VfsCache;
let server: MediaServer;

beforeAll(async () => {
  origin = await startVfsOrigin({ latencyMs: 15, bytesPerSecond: 6 * 1024 * 1024 });
  for (const kind of KINDS) await makeMedia(origin.davDir, kind);
  cache = await VfsCache.open(SMALL_SMART, path.join(root, 'cache'));
  server = await serveMedia((file) => mediaSource(origin, cache, file));
}, 600_000);

afterAll(async () => {
  await server?.close();
  await cache?.stop();
  await origin?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** File content bytes that crossed the slow link while `action` ran (and what it left running). */
async function upstreamBytes(action: () => Promise<unknown>): Promise<number> {
  const before = origin.proxy.stats.getBytes;
  await action();
  await settled(cache, origin.proxy);
  return origin.proxy.stats.getBytes - before;
}

/** Reads ranges through a fresh source of the file; checks them against the file. */
async function readThroughCache(file: string, content: Buffer, ranges: ByteRange[]): Promise<void> {
  const source = mediaSource(origin, cache, file);
  try {
    for (const range of ranges) {
      const bytes = await readRange(source, range);
      expect(bytes.equals(content.subarray(range.start, range.end + 1))).toBe(true);
    }
  } finally {
    await source.close();
  }
}

describe.each(KINDS)('SMART_STARTUP over a slow WebDAV link: %s', (kind) => {
  const file = MEDIA_FILES[kind];
  let content: Buffer;
  let index: ByteRange[];

  it('keeps what the first start read within the cap, and answers the second start of the head from disk', async () => {
    content = readFileSync(path.join(origin.davDir, file));
    ({ index } = await findContainerIndex(async (r) => content.subarray(r.start, r.end + 1), content.length));
    expect(index.length).toBeGreaterThan(0);

    let probed: Awaited<ReturnType<typeof ffprobe>> | undefined;
    const first = await upstreamBytes(async () => {
      probed = await ffprobe(server.url(file));
      expect((await rangedRead(server.url(file), HEAD)).equals(content.subarray(0, HEAD.end + 1))).toBe(true);
    });
    expect(first).toBeGreaterThanOrEqual(SMALL_SMART.minHeadBytes);
    // Nothing is left reserved once every reader and the startup job are gone.
    expect(cache.store.usage().inFlightBytes).toBe(0);
    const kept = await recordedRanges(cache.store.directory, `${origin.mount.id}:${file}`, content.length);
    expect(totalBytes(kept)).toBeLessThanOrEqual(SMALL_SMART.perFileHardCapBytes);

    expect(await upstreamBytes(() => readThroughCache(file, content, [HEAD]))).toBe(0);
    let again: Awaited<ReturnType<typeof ffprobe>> | undefined;
    await upstreamBytes(async () => (again = await ffprobe(server.url(file))));
    expect(again).toEqual(probed);
  });

  // Matroska keeps its Cues at the end, where neither ffprobe nor a player's start reads them: they are
  // on disk only because the startup job after the first stream fetched the plan's missing bytes.
  it('answers the second start of the container index from disk', async () => {
    expect(await upstreamBytes(() => readThroughCache(file, content, index))).toBe(0);
  });
});
