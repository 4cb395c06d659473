// Playback through the node's video cache (docs/vfs-cache.md, "Playback"): a real PlaybackStreamer behind a
// Fastify listener, a node:http storage node whose `locate` says the file is remote, and the node's cache
// runtime switched on. The second open is answered from disk, a range over cached and uncached bytes is one
// correct 206, and byte accounting counts exactly what the client received. A file on this machine's disk
// never goes through the cache.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_NODE_CACHE_CONFIG,
  type PlaybackFile,
  type PlaybackItem,
  type ServiceInstance,
} from '@svc/contracts';
import { createServer, type AppServer } from '../../../../src/platform/http/create-server.js';
import { createLogger } from '../../../../src/platform/logger.js';
import { SERVICE_TOKEN_HEADER } from '../../../../src/platform/service-token.js';
import { NodeCacheRuntime } from '../../../../src/services/play-agent/cache-runtime/node-cache-runtime.js';
import { PlaybackStreamer } from '../../../../src/services/play-agent/proto-a/streamer.js';
import { planFileResponse } from '../../../../src/services/storage/file-response.js';
import { waitFor } from '../../../support/wait.js';

const TOKEN = 'svc_st_streamer_cache_test_token_0123456789';
const logger = createLogger({ level: 'silent', component: 'play-agent' });
const dir = mkdtempSync(path.join(tmpdir(), 'svc-streamer-cache-'));
const media = randomBytes(1_500_000);
const mediaFile = path.join(dir, 'episode.mkv');
writeFileSync(mediaFile, media);
/** `locate` answers the real file's mtime: a local file is opened only when its fstat agrees. */
const mtime = statSync(mediaFile).mtime;

/** Bytes and ranges the storage node's file route served. */
const storageLog: { range: string | undefined; bytes: number }[] = [];
/** `locate` names the real file for this mount path (a local mount); every other path is remote. */
const LOCAL_PATH = '/Movies/local.mkv';
let storage: Server;
let agent: AppServer;
let agentUrl: string;
let runtime: NodeCacheRuntime;
const deltas = new Map<string, number[]>();
/** Items whose popularity the streamer asked for (only files read through the cache need it). */
const popularityAsked: string[] = [];

beforeAll(async () => {
  storage = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://storage');
    if (req.headers[SERVICE_TOKEN_HEADER] !== TOKEN) return void res.writeHead(401).end();
    if (url.pathname.endsWith('/locate')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          localPath: url.searchParams.get('path') === LOCAL_PATH ? mediaFile : null,
          size: media.length,
          mtime: mtime.toISOString(),
        }),
      );
    }
    const plan = planFileResponse(
      req.method ?? 'GET',
      req.headers,
      { name: 'episode.mkv', size: media.length, mtime: mtime },
      { attachment: false },
    );
    res.writeHead(plan.status, plan.headers);
    if (!plan.range || req.method === 'HEAD') return void res.end();
    storageLog.push({ range: req.headers.range, bytes: plan.range.end - plan.range.start + 1 });
    res.end(media.subarray(plan.range.start, plan.range.end + 1));
  });
  await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
  const storageUrl = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;

  runtime = new NodeCacheRuntime({
    defaultDirectory: path.join(dir, 'vfs_cache'),
    baseDirectory: dir,
    logger,
  });
  await runtime.apply({
    ...DEFAULT_NODE_CACHE_CONFIG,
    vfs: { ...DEFAULT_NODE_CACHE_CONFIG.vfs, enabled: true },
  });
  const instance: ServiceInstance = {
    service: 'svc-control-storage',
    instanceId: 'storage-1',
    nodeId: 'node-storage',
    baseUrl: storageUrl,
    registeredAt: '2024-01-01T00:00:00.000Z',
    lastSeenAt: '2024-01-01T00:00:00.000Z',
  };
  const streamer = new PlaybackStreamer({
    registry: { lookup: async () => [instance] },
    serviceToken: TOKEN,
    rateBytesPerSecond: 0,
    logger,
    videoCache: runtime,
    viewersLastDay: async (itemId) => {
      popularityAsked.push(itemId);
      return 5;
    },
  });
  const file: PlaybackFile = {
    nodeId: 'node-storage',
    mountId: 'mount-remote',
    path: '/TV/Show/Season 1/episode.mkv',
    size: media.length,
    mtime: mtime.toISOString(),
    mediaInfo: null,
    subtitles: [],
  };
  const item = {
    id: 'item-ep-3',
    kind: 'episode',
    name: 'The Third',
    premiereDate: '2020-01-01T00:00:00.000Z',
    seriesName: 'Show',
    parentIndexNumber: 1,
    indexNumber: 3,
    file,
  } as PlaybackItem;
  agent = createServer({ allowUndeclaredRoutes: true, component: 'play-agent', logger, serviceToken: TOKEN });
  agent.route({
    method: 'GET',
    url: '/play',
    config: { auth: { direct: 'health' } },
    handler: async (req, reply) => {
      const counted: number[] = [];
      deltas.set(String(req.headers['x-test-id']), counted);
      const local = (req.query as { local?: string }).local !== undefined;
      await streamer.send(req, reply, {
        file: local ? { ...file, path: LOCAL_PATH } : file,
        item,
        onBytes: (delta) => counted.push(delta),
      });
    },
  });
  await agent.listen({ host: '127.0.0.1', port: 0 });
  agentUrl = `http://127.0.0.1:${(agent.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent?.close();
  await new Promise((resolve) => storage?.close(resolve));
  await runtime?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function play(id: string, range?: string, local = false) {
  const answer = await request(`${agentUrl}/play${local ? '?local=1' : ''}`, {
    headers: { 'x-test-id': id, ...(range ? { range } : {}) },
  });
  const body = Buffer.from(await answer.body.arrayBuffer());
  return { status: answer.statusCode, headers: answer.headers, body };
}

const served = () => storageLog.reduce((total, entry) => total + entry.bytes, 0);
const counted = (id: string) => (deltas.get(id) ?? []).reduce((total, delta) => total + delta, 0);
const entry = () =>
  runtime.list({ page: 1, pageSize: 10, groupByEpisodes: true, sort: 'lastAccess', order: 'desc' }).rows;

/** Waits until the stream's source was closed and its bytes recorded (the client may finish first). */
const settled = (cached: number) =>
  waitFor(() => {
    const [row] = entry();
    const first = row?.entries[0];
    return first && !row.entries.some((item) => item.badge === 'PLAYING') && first.cachedBytes >= cached
      ? true
      : undefined;
  });

describe('playback through the video cache', () => {
  it('stitches a range over cached and uncached bytes into one 206, counting what the client got', async () => {
    const first = await play('head', 'bytes=0-299999');
    expect(first.status).toBe(206);
    expect(first.body.equals(media.subarray(0, 300_000))).toBe(true);
    expect(counted('head')).toBe(300_000);
    await settled(300_000);

    const before = storageLog.length;
    const stitched = await play('stitched', 'bytes=200000-');
    expect(stitched.status).toBe(206);
    expect(stitched.headers['content-range']).toBe(`bytes 200000-${media.length - 1}/${media.length}`);
    expect(Number(stitched.headers['content-length'])).toBe(media.length - 200_000);
    expect(stitched.body.equals(media.subarray(200_000))).toBe(true);
    expect(counted('stitched')).toBe(media.length - 200_000);
    // The cached part came from disk: the storage node was asked (if at all: the startup job may have
    // filled the rest of this small file meanwhile) only from the first byte not cached.
    const asked = storageLog.slice(before).map((request) => request.range);
    const fetched = storageLog.slice(before).reduce((total, request) => total + request.bytes, 0);
    expect(fetched).toBeLessThanOrEqual(media.length - 300_000);
    for (const range of asked)
      expect(Number(/^bytes=(\d+)-/.exec(range ?? '')?.[1])).toBeGreaterThanOrEqual(300_000);
    await settled(media.length);
  });

  it('answers the second open from disk, and lists the entry with its episode facts', async () => {
    const before = served();
    const again = await play('again', 'bytes=0-1048575');
    expect(again.status).toBe(206);
    expect(again.body.equals(media.subarray(0, 1_048_576))).toBe(true);
    expect(counted('again')).toBe(1_048_576);
    expect(served()).toBe(before);
    await settled(media.length);

    const [row] = entry();
    expect(row).toMatchObject({ key: 'series:Show:1', name: 'Show S01' });
    expect(row!.entries[0]).toMatchObject({
      name: 'The Third',
      itemId: 'item-ep-3',
      episodeNumber: 3,
      totalBytes: media.length,
      cachedBytes: media.length,
    });
  });

  it('streams a file on this machine straight from its disk, never through the cache', async () => {
    await runtime.flush();
    const whole = await play('local', undefined, true);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(media)).toBe(true);
    expect(counted('local')).toBe(media.length);
    expect(entry()).toEqual([]);
    expect(popularityAsked.length).toBe(3);
    expect(new Set(popularityAsked)).toEqual(new Set(['item-ep-3']));
  });
});
