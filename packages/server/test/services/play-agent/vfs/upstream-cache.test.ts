import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFileSource } from '../../../../src/services/play-agent/stream/sources.js';
import { VfsCache } from '../../../../src/services/play-agent/vfs/vfs-cache.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../../../support/throttling-proxy.js';
import { patternBytes, readAll } from './memory-source.js';

const content = patternBytes(1024 * 1024 + 17, 5);
const root = mkdtempSync(path.join(tmpdir(), 'svc-vfs-upstream-'));
let origin: http.Server;
let proxy: ThrottlingProxy;

beforeAll(async () => {
  // The storage node's internal file route, reduced to what the source asks: HEAD and one byte range.
  origin = http.createServer((request, response) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range ? Number(range[2]) : content.length - 1;
    response.writeHead(range ? 206 : 200, {
      'content-length': String(end - start + 1),
      ...(range ? { 'content-range': `bytes ${start}-${end}/${content.length}` } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : content.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const { port } = origin.address() as AddressInfo;
  proxy = await startThrottlingProxy({
    target: `http://127.0.0.1:${port}`,
    latencyMs: 20,
    bytesPerSecond: 8 * 1024 * 1024,
  });
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => origin.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

function source(cache: VfsCache | null) {
  return upstreamFileSource({
    baseUrl: proxy.url,
    mountId: 'mount-1',
    path: '/Movies/film.mkv',
    serviceToken: 'token',
    known: { size: content.length, mtime: 1_700_000_000_000 },
    cache,
  });
}

describe('the storage file source behind the video cache', () => {
  it('is unchanged without a cache, and answers a second open from disk with one', async () => {
    const plain = source(null);
    expect(plain).not.toHaveProperty('cacheEntry');
    expect((await readAll(plain, { start: 10, end: 5000 })).equals(content.subarray(10, 5001))).toBe(true);
    await plain.close();

    const cache = await VfsCache.open(
      { ...DEFAULT_VFS_CACHE_CONFIG, enabled: true, mode: 'READ_AHEAD' },
      path.join(root, 'cache'),
    );
    const before = proxy.stats.responseBytes;
    const first = source(cache);
    expect((await readAll(first, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    await first.close();
    expect(proxy.stats.responseBytes - before).toBe(content.length);

    const requests = proxy.stats.requests;
    const second = source(cache);
    expect((await readAll(second, { start: 0, end: content.length - 1 })).equals(content)).toBe(true);
    expect(
      (await readAll(second, { start: 700_000, end: 800_000 })).equals(content.subarray(700_000, 800_001)),
    ).toBe(true);
    await second.close();
    expect(proxy.stats.requests).toBe(requests);
    expect(cache.store.entries()).toEqual([
      expect.objectContaining({
        sourceId: 'mount-1:/Movies/film.mkv',
        name: 'film.mkv',
        cachedBytes: content.length,
      }),
    ]);
    await cache.stop();
  });
});
