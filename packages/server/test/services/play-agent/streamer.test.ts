import { parse as parseDisposition } from 'content-disposition';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PlaybackFile, RegisteredService, ServiceInstance } from '@svc/contracts';
import { createServer, type AppServer } from '../../../src/platform/http/create-server.js';
import { AppError } from '../../../src/platform/http/errors.js';
import { createLogger } from '../../../src/platform/logger.js';
import { SERVICE_TOKEN_HEADER } from '../../../src/platform/service-token.js';
import { PlaybackStreamer } from '../../../src/services/play-agent/proto-a/streamer.js';
import { planFileResponse } from '../../../src/services/storage/file-response.js';

/**
 * PlaybackStreamer (proto-a/streamer.ts) end to end: a real Fastify play-agent listener calls
 * `streamer.send`, the client is undici, and the storage node is a real node:http server that speaks the
 * node's internal API (`locate` and the Range-serving `file` route, answered with the node's own
 * planner), counting what each route is asked.
 */

const TOKEN = 'svc_st_streamer_test_service_token_0123456789';
const NODE = 'node-1';
const MOUNT = 'm1';
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const logger = createLogger({ level: 'silent', component: 'play-agent' });
/** 2023-11-14T22:13:20.123699Z */
const MTIME_SECONDS = 1_700_000_000.123699;

// --- The storage node -----------------------------------------------------------------------------------

/** What `locate` answers for a path. Size and mtime always come from the file the file route serves. */
type LocateMode =
  /** `localPath` is the served file itself (a local mount on this machine). */
  | { kind: 'local' }
  /** `localPath: null` (a WebDAV mount). */
  | { kind: 'remote' }
  /** `localPath` names another file (the same name on another machine, a replaced file). */
  | { kind: 'elsewhere'; localPath: string }
  /** An error status. */
  | { kind: 'status'; status: number };

interface Entry {
  /** The real file behind the mount path. */
  file: string;
  locate: LocateMode;
}

interface StorageRequest {
  route: 'locate' | 'file';
  method: string;
  mountId: string;
  path: string;
  range: string | undefined;
}

interface FakeStorage {
  server: Server;
  baseUrl: string;
  /** Mount path (as the media service stores it) → what lies there. Absent = 404 on both routes. */
  entries: Map<string, Entry>;
  /** Authorized requests, in order. */
  log: StorageRequest[];
  /** Requests without the right service token (answered 401). */
  rejected: string[];
  count(route: 'locate' | 'file', mountPath: string, method?: string): number;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function startStorage(): Promise<FakeStorage> {
  const entries = new Map<string, Entry>();
  const log: StorageRequest[] = [];
  const rejected: string[] = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://storage');
    const match = /^\/api\/storage\/internal\/mounts\/([^/]+)\/(locate|file)$/.exec(url.pathname);
    if (!match) {
      json(res, 404, { error: { code: 'NOT_FOUND', message: 'no route' } });
      return;
    }
    if (req.headers[SERVICE_TOKEN_HEADER] !== TOKEN) {
      rejected.push(`${req.method} ${req.url}`);
      json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'service token required' } });
      return;
    }
    const route = match[2] as 'locate' | 'file';
    const mountId = decodeURIComponent(match[1]!);
    const mountPath = url.searchParams.get('path') ?? '';
    const method = req.method ?? 'GET';
    log.push({ route, method, mountId, path: mountPath, range: req.headers.range });
    const entry = mountId === MOUNT ? entries.get(mountPath) : undefined;

    if (route === 'locate') {
      if (method !== 'GET') {
        json(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'GET only' } });
        return;
      }
      if (!entry) {
        json(res, 404, { error: { code: 'NOT_FOUND', message: 'no file or folder at this path' } });
        return;
      }
      const { locate } = entry;
      if (locate.kind === 'status') {
        json(res, locate.status, { error: { code: 'FAILED', message: 'locate failed' } });
        return;
      }
      const info = statSync(entry.file);
      json(res, 200, {
        localPath: locate.kind === 'local' ? entry.file : locate.kind === 'remote' ? null : locate.localPath,
        size: info.size,
        mtime: info.mtime.toISOString(),
      });
      return;
    }

    if (method !== 'GET' && method !== 'HEAD') {
      json(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'GET and HEAD only' } });
      return;
    }
    if (!entry) {
      json(res, 404, { error: { code: 'NOT_FOUND', message: 'no file or folder at this path' } });
      return;
    }
    const info = statSync(entry.file);
    const plan = planFileResponse(
      method,
      req.headers,
      { name: path.posix.basename(mountPath), size: info.size, mtime: info.mtime },
      { attachment: false },
    );
    res.writeHead(plan.status, plan.headers);
    if (plan.status === 416) {
      res.end(method === 'HEAD' ? undefined : JSON.stringify({ error: { code: 'RANGE_NOT_SATISFIABLE' } }));
      return;
    }
    if (!plan.range) {
      res.end();
      return;
    }
    pipeline(
      createReadStream(entry.file, { start: plan.range.start, end: plan.range.end }),
      res,
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    entries,
    log,
    rejected,
    count: (route, mountPath, method) =>
      log.filter(
        (entry) =>
          entry.route === route &&
          entry.path === mountPath &&
          (method === undefined || entry.method === method),
      ).length,
  };
}

// --- The play-agent side --------------------------------------------------------------------------------

/** One request through the agent's route: the onBytes deltas and when `send` settled. */
interface Run {
  deltas: number[];
  error: unknown;
  done: Promise<void>;
  finish: () => void;
}

interface Agent {
  app: AppServer;
  url: string;
  run(id: string): Run;
}

/**
 * A play-agent listener with one route, GET|HEAD /play?path=&node=&attach=, that streams the mount path
 * through `streamer.send` and records the onBytes deltas per `x-test-id`.
 */
async function startAgent(streamer: PlaybackStreamer, files: Map<string, PlaybackFile>): Promise<Agent> {
  const app = createServer({
    allowUndeclaredRoutes: true,
    component: 'play-agent',
    logger,
    serviceToken: TOKEN,
  });
  const runs = new Map<string, Run>();
  const run = (id: string): Run => {
    let entry = runs.get(id);
    if (!entry) {
      let finish!: () => void;
      const done = new Promise<void>((resolve) => (finish = resolve));
      entry = { deltas: [], error: undefined, done, finish };
      runs.set(id, entry);
    }
    return entry;
  };
  app.route({
    method: ['GET', 'HEAD'],
    url: '/play',
    config: { auth: { direct: 'health' } },
    handler: async (request, reply) => {
      const query = request.query as { path?: string; node?: string; attach?: string };
      const current = run(String(request.headers['x-test-id'] ?? ''));
      const mountPath = query.path ?? '';
      const file: PlaybackFile = files.get(mountPath) ?? {
        nodeId: NODE,
        mountId: MOUNT,
        path: mountPath,
        size: null,
        mtime: null,
        mediaInfo: null,
        subtitles: [],
      };
      try {
        await streamer.send(request, reply, {
          file: query.node ? { ...file, nodeId: query.node } : file,
          ...(query.attach !== undefined ? { attachmentName: query.attach } : {}),
          onBytes: (delta) => current.deltas.push(delta),
        });
      } catch (error) {
        current.error = error;
        throw error;
      } finally {
        current.finish();
      }
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, run };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('PlaybackStreamer against a fake storage node', () => {
  let dir: string;
  let storage: FakeStorage;
  let agent: Agent;
  let streamer: PlaybackStreamer;
  /** The library's view of the files (what the media service would hand the streamer). */
  const files = new Map<string, PlaybackFile>();
  const lookups: { service: string; nodeId: string | undefined }[] = [];
  let seq = 0;

  /** 4 MiB + 123 bytes of random data: an odd size, several 1 MiB chunks. */
  let media: Buffer;
  let mediaFile: string;
  let sizeDecoy: string;
  let mtimeDecoy: string;

  const instance = (nodeId: string, baseUrl: string, lastSeenAt: string): ServiceInstance => ({
    service: 'svc-control-storage',
    instanceId: `x-${lastSeenAt}`,
    nodeId,
    baseUrl,
    registeredAt: '2024-01-01T00:00:00.000Z',
    lastSeenAt,
  });

  const registry = {
    lookup: async (service: RegisteredService, nodeId?: string): Promise<ServiceInstance[]> => {
      lookups.push({ service, nodeId });
      if (nodeId === 'registry-down') throw new Error('connect ECONNREFUSED');
      if (nodeId === NODE) return [instance(NODE, storage.baseUrl, '2024-01-01T00:00:10.000Z')];
      if (nodeId === 'two-instances') {
        // The newest entry wins; the stale one points at a port nobody listens on.
        return [
          instance(nodeId, 'http://127.0.0.1:9', '2024-01-01T00:00:01.000Z'),
          instance(nodeId, `${storage.baseUrl}/`, '2024-01-01T00:00:30.000Z'),
          instance(nodeId, 'http://127.0.0.1:9', '2024-01-01T00:00:02.000Z'),
        ];
      }
      return [];
    },
  };

  /** Registers a mount path and the library entry the agent hands the streamer for it. */
  const place = (mountPath: string, file: string, locate: LocateMode) => {
    storage.entries.set(mountPath, { file, locate });
    const info = statSync(file);
    files.set(mountPath, {
      nodeId: NODE,
      mountId: MOUNT,
      path: mountPath,
      size: info.size,
      mtime: info.mtime.toISOString(),
      mediaInfo: null,
      subtitles: [],
    });
  };

  const write = (name: string, data: Buffer | string) => {
    const file = path.join(dir, name);
    writeFileSync(file, data);
    return file;
  };

  /** A request to the agent; the answer is read whole and `send` has settled when this resolves. */
  async function play(
    target: Agent,
    query: Record<string, string>,
    options: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {},
  ) {
    const id = `req-${++seq}`;
    const response = await request(`${target.url}/play?${new URLSearchParams(query).toString()}`, {
      method: options.method ?? 'GET',
      headers: { 'x-test-id': id, ...options.headers },
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    const run = target.run(id);
    await run.done;
    return { status: response.statusCode, headers: response.headers, body, run };
  }

  const storageEtag = (file: string) => {
    const info = statSync(file);
    return `"${info.size.toString(16)}-${Math.floor(info.mtime.getTime()).toString(16)}"`;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-streamer-'));
    media = randomBytes(4 * 1024 * 1024 + 123);
    mediaFile = write('movie.mkv', media);
    // Same name elsewhere: another size, or the same size with another mtime.
    sizeDecoy = write('decoy-size.mkv', media.subarray(0, media.length - 1));
    mtimeDecoy = write('decoy-mtime.mkv', Buffer.alloc(media.length, 0x55));
    // An mtime with a sub-millisecond part of .7: Node's Stats.mtime rounds it up, a truncation does not.
    utimesSync(mediaFile, MTIME_SECONDS, MTIME_SECONDS);
    utimesSync(mtimeDecoy, MTIME_SECONDS, MTIME_SECONDS - 10);
    storage = await startStorage();
    streamer = new PlaybackStreamer({ registry, serviceToken: TOKEN, rateBytesPerSecond: 0, logger });
    agent = await startAgent(streamer, files);
  });

  afterEach(() => {
    // Every request the streamer made carried the service token.
    expect(storage.rejected).toEqual([]);
  });

  afterAll(async () => {
    await agent?.app.close();
    if (storage) {
      const closed = new Promise<void>((resolve) => storage.server.close(() => resolve()));
      storage.server.closeAllConnections();
      await closed;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // 1
  it('co-located: reads the file locate names straight from the disk, never through the file route', async () => {
    place('/Movies/Local.mkv', mediaFile, { kind: 'local' });
    const answer = await play(agent, { path: '/Movies/Local.mkv' });
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(media.length);
    expect(sha(answer.body)).toBe(sha(media));
    expect(answer.headers['content-length']).toBe(String(media.length));
    expect(answer.headers['content-type']).toBe('video/x-matroska');
    expect(answer.headers['accept-ranges']).toBe('bytes');
    expect(answer.run.error).toBeUndefined();
    expect(sum(answer.run.deltas)).toBe(answer.body.length);
    expect(storage.count('locate', '/Movies/Local.mkv')).toBe(1);
    expect(storage.count('file', '/Movies/Local.mkv')).toBe(0);
    expect(lookups.at(-1)).toEqual({ service: 'svc-control-storage', nodeId: NODE });

    // A range from the disk too; the locate answer is reused (cached), the file route still untouched.
    const part = await play(
      agent,
      { path: '/Movies/Local.mkv' },
      { headers: { range: 'bytes=1048570-1048585' } },
    );
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1048570-1048585/${media.length}`);
    expect(part.body.equals(media.subarray(1048570, 1048586))).toBe(true);
    expect(sum(part.run.deltas)).toBe(16);
    expect(storage.count('locate', '/Movies/Local.mkv')).toBe(1);
    expect(storage.count('file', '/Movies/Local.mkv')).toBe(0);
  });

  // 2
  it('localPath null (WebDAV): the bytes come through the file route with the client range passed on', async () => {
    const name = '/Movies/Remote (2001).mkv';
    place(name, mediaFile, { kind: 'remote' });
    const size = media.length;

    const whole = await play(agent, { path: name });
    expect(whole.status).toBe(200);
    expect(sha(whole.body)).toBe(sha(media));
    expect(sum(whole.run.deltas)).toBe(size);
    expect(whole.headers.etag).toBe(storageEtag(mediaFile));

    const open = await play(agent, { path: name }, { headers: { range: 'bytes=1000-' } });
    expect(open.status).toBe(206);
    expect(open.headers['content-range']).toBe(`bytes 1000-${size - 1}/${size}`);
    expect(open.headers['content-length']).toBe(String(size - 1000));
    expect(open.body.equals(media.subarray(1000))).toBe(true);
    expect(sum(open.run.deltas)).toBe(size - 1000);

    const middle = await play(agent, { path: name }, { headers: { range: 'bytes=2097150-2097151' } });
    expect(middle.status).toBe(206);
    expect(middle.headers['content-range']).toBe(`bytes 2097150-2097151/${size}`);
    expect(middle.body.equals(media.subarray(2097150, 2097152))).toBe(true);

    const suffix = await play(agent, { path: name }, { headers: { range: 'bytes=-500' } });
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe(`bytes ${size - 500}-${size - 1}/${size}`);
    expect(suffix.body.equals(media.subarray(size - 500))).toBe(true);

    // The storage node saw each range resolved to exactly `a-b`, and no HEAD (size came from locate).
    const gets = storage.log.filter((entry) => entry.route === 'file' && entry.path === name);
    expect(gets.map((entry) => `${entry.method} ${entry.range ?? ''}`)).toEqual([
      `GET bytes=0-${size - 1}`,
      `GET bytes=1000-${size - 1}`,
      'GET bytes=2097150-2097151',
      `GET bytes=${size - 500}-${size - 1}`,
    ]);
    expect(storage.count('locate', name)).toBe(1);

    // HEAD: the headers, no body, nothing asked of the file route.
    const head = await play(agent, { path: name }, { method: 'HEAD', headers: { range: 'bytes=10-19' } });
    expect(head.status).toBe(206);
    expect(head.headers['content-length']).toBe('10');
    expect(head.headers['content-range']).toBe(`bytes 10-19/${size}`);
    expect(head.body.length).toBe(0);
    expect(sum(head.run.deltas)).toBe(0);
    const plainHead = await play(agent, { path: name }, { method: 'HEAD' });
    expect(plainHead.status).toBe(200);
    expect(plainHead.headers['content-length']).toBe(String(size));
    expect(plainHead.headers.etag).toBe(storageEtag(mediaFile));
    expect(plainHead.body.length).toBe(0);
    expect(storage.count('file', name)).toBe(4);
  });

  // 3
  it("the ETag and Last-Modified are the storage node's whether the file is read from the disk or the file route", async () => {
    // docs/streaming.md: "the ETag formula is the storage node's, so a file has the same ETag whether it is
    // read locally or over HTTP". The file's mtime is ...123.699 ms: the storage node says ...124 (Stats.mtime).
    place('/Movies/Etag local.mkv', mediaFile, { kind: 'local' });
    place('/Movies/Etag remote.mkv', mediaFile, { kind: 'remote' });
    const own = await request(
      `${storage.baseUrl}/api/storage/internal/mounts/${MOUNT}/file?path=${encodeURIComponent('/Movies/Etag local.mkv')}`,
      { method: 'HEAD', headers: { [SERVICE_TOKEN_HEADER]: TOKEN } },
    );
    await own.body.dump();
    expect(own.headers.etag).toBe(storageEtag(mediaFile));
    const remote = await play(agent, { path: '/Movies/Etag remote.mkv' }, { method: 'HEAD' });
    const local = await play(agent, { path: '/Movies/Etag local.mkv' }, { method: 'HEAD' });
    expect(remote.headers.etag).toBe(own.headers.etag);
    expect(remote.headers['last-modified']).toBe(own.headers['last-modified']);
    expect(local.headers['last-modified']).toBe(own.headers['last-modified']);
    expect(local.headers.etag).toBe(own.headers.etag);

    // A resume with If-Range carrying the storage node's ETag keeps its range on both paths.
    for (const name of ['/Movies/Etag remote.mkv', '/Movies/Etag local.mkv']) {
      const resumed = await play(
        agent,
        { path: name },
        { headers: { range: 'bytes=100-199', 'if-range': String(own.headers.etag) } },
      );
      expect(resumed.status, name).toBe(206);
      expect(resumed.body.equals(media.subarray(100, 200)), name).toBe(true);
    }
  });

  it('a located file whose size or mtime differ is not used: the bytes come through the file route', async () => {
    place('/Movies/Other size.mkv', mediaFile, { kind: 'elsewhere', localPath: sizeDecoy });
    place('/Movies/Other mtime.mkv', mediaFile, { kind: 'elsewhere', localPath: mtimeDecoy });
    for (const name of ['/Movies/Other size.mkv', '/Movies/Other mtime.mkv']) {
      const answer = await play(agent, { path: name });
      expect(answer.status, name).toBe(200);
      expect(sha(answer.body), name).toBe(sha(media));
      expect(sum(answer.run.deltas), name).toBe(media.length);
      expect(storage.count('locate', name), name).toBe(1);
      expect(storage.count('file', name, 'GET'), name).toBe(1);

      const part = await play(agent, { path: name }, { headers: { range: 'bytes=5-9' } });
      expect(part.status, name).toBe(206);
      expect(part.body.equals(media.subarray(5, 10)), name).toBe(true);
      expect(storage.count('file', name, 'GET'), name).toBe(2);
    }
  });

  it('a locate that fails (500) falls back to the file route, which then gives the size (HEAD)', async () => {
    place('/Movies/Locate fails.mkv', mediaFile, { kind: 'status', status: 500 });
    const answer = await play(
      agent,
      { path: '/Movies/Locate fails.mkv' },
      { headers: { range: 'bytes=100-' } },
    );
    expect(answer.status).toBe(206);
    expect(answer.body.equals(media.subarray(100))).toBe(true);
    expect(sum(answer.run.deltas)).toBe(media.length - 100);
    expect(storage.count('file', '/Movies/Locate fails.mkv', 'HEAD')).toBe(1);
    expect(storage.count('file', '/Movies/Locate fails.mkv', 'GET')).toBe(1);
  });

  // 4
  it('locate 404: the client gets 404 and nothing is streamed', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const answer = await play(agent, { path: '/Movies/Gone.mkv' }, { method });
      expect(answer.status, method).toBe(404);
      expect(answer.run.deltas, method).toEqual([]);
      if (method === 'GET') {
        expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ error: { code: 'NOT_FOUND' } });
      }
    }
    expect(storage.count('locate', '/Movies/Gone.mkv')).toBe(2);
    expect(storage.count('file', '/Movies/Gone.mkv')).toBe(0);
  });

  it('no storage instance in the registry, or no registry: 503 UPSTREAM_UNAVAILABLE', async () => {
    place('/Movies/Offline.mkv', mediaFile, { kind: 'local' });
    const before = storage.log.length;
    for (const node of ['offline-node', 'registry-down']) {
      const answer = await play(agent, { path: '/Movies/Offline.mkv', node });
      expect(answer.status, node).toBe(503);
      expect(JSON.parse(answer.body.toString('utf8')), node).toMatchObject({
        error: { code: 'UPSTREAM_UNAVAILABLE' },
      });
      expect(answer.run.deltas, node).toEqual([]);
      expect(lookups.at(-1)).toEqual({ service: 'svc-control-storage', nodeId: node });
    }
    expect(storage.log.length).toBe(before);
  });

  it('with several registered instances the newest is used (a trailing slash of its address is fine)', async () => {
    place('/Movies/Newest.mkv', mediaFile, { kind: 'remote' });
    const answer = await play(agent, { path: '/Movies/Newest.mkv', node: 'two-instances' });
    expect(answer.status).toBe(200);
    expect(sha(answer.body)).toBe(sha(media));
    expect(storage.count('locate', '/Movies/Newest.mkv')).toBe(1);
    expect(storage.count('file', '/Movies/Newest.mkv', 'GET')).toBe(1);
  });

  // 5
  it('a malformed range is 416 with bytes */size; the file route is not asked for bytes', async () => {
    place('/Movies/Bad range.mkv', mediaFile, { kind: 'remote' });
    place('/Movies/Bad range local.mkv', mediaFile, { kind: 'local' });
    for (const name of ['/Movies/Bad range.mkv', '/Movies/Bad range local.mkv']) {
      for (const range of ['bytes=0-1a', `bytes=${media.length}-`]) {
        const answer = await play(agent, { path: name }, { headers: { range } });
        expect(answer.status, `${name} ${range}`).toBe(416);
        expect(answer.headers['content-range'], range).toBe(`bytes */${media.length}`);
        expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({
          error: { code: 'RANGE_NOT_SATISFIABLE' },
        });
        expect(answer.run.deltas).toEqual([]);
      }
      expect(storage.count('file', name), name).toBe(0);
      expect(storage.count('locate', name), name).toBe(1);
    }
  });

  // 6
  it('setRate reconfigures the bucket of a running stream; new streams take the new rate', async () => {
    const rateData = randomBytes(3_000_000);
    const rateFile = write('rate.mkv', rateData);
    place('/Movies/Rate.mkv', rateFile, { kind: 'local' });
    const limited = new PlaybackStreamer({
      registry,
      serviceToken: TOKEN,
      rateBytesPerSecond: 1_000_000, // 8 Mbps
      logger,
    });
    const limitedAgent = await startAgent(limited, files);
    try {
      expect(limited.rateBytesPerSecond).toBe(1_000_000);
      const id = 'rate-live';
      const started = performance.now();
      const response = await request(
        `${limitedAgent.url}/play?path=${encodeURIComponent('/Movies/Rate.mkv')}`,
        {
          headers: { 'x-test-id': id },
        },
      );
      expect(response.statusCode).toBe(200);
      const chunks: Buffer[] = [];
      let received = 0;
      let atSwitch = -1;
      let switchedAt = 0;
      const switchTimer = setTimeout(() => {
        atSwitch = received;
        switchedAt = performance.now();
        limited.setRate(4_000_000); // 32 Mbps
      }, 1000);
      for await (const chunk of response.body) {
        chunks.push(chunk as Buffer);
        received += (chunk as Buffer).length;
      }
      clearTimeout(switchTimer);
      const ended = performance.now();
      await limitedAgent.run(id).done;

      const body = Buffer.concat(chunks);
      expect(sha(body)).toBe(sha(rateData));
      expect(limited.rateBytesPerSecond).toBe(4_000_000);
      // The first second ran at about 1 MB/s (the bucket starts full: 20 kB of burst on top).
      expect(atSwitch).toBeGreaterThan(700_000);
      expect(atSwitch).toBeLessThan(1_300_000);
      // The rest (about 2 MB) at 4 MB/s: about 0.5 s instead of 2 s.
      const rest = (ended - switchedAt) / 1000;
      const restBytes = rateData.length - atSwitch;
      expect(rest).toBeLessThan((restBytes / 1_000_000) * 0.5);
      expect(rest).toBeGreaterThan((restBytes / 4_000_000) * 0.8);
      expect((ended - started) / 1000).toBeLessThan(2.2);
      expect(sum(limitedAgent.run(id).deltas)).toBe(rateData.length);

      // A stream started now is limited to the new rate from its start: 2 MB in about 0.5 s.
      const begin = performance.now();
      const next = await play(
        limitedAgent,
        { path: '/Movies/Rate.mkv' },
        { headers: { range: 'bytes=0-1999999' } },
      );
      const seconds = (performance.now() - begin) / 1000;
      expect(next.status).toBe(206);
      expect(next.body.equals(rateData.subarray(0, 2_000_000))).toBe(true);
      expect(seconds).toBeGreaterThan(0.4);
      expect(seconds).toBeLessThan(1.2);
    } finally {
      await limitedAgent.app.close();
    }
  });

  it('a stream started at rate 0 is unlimited', async () => {
    expect(streamer.rateBytesPerSecond).toBe(0);
    place('/Movies/Unlimited.mkv', mediaFile, { kind: 'local' });
    const begin = performance.now();
    const answer = await play(agent, { path: '/Movies/Unlimited.mkv' });
    const seconds = (performance.now() - begin) / 1000;
    expect(answer.status).toBe(200);
    expect(sha(answer.body)).toBe(sha(media));
    // 4 MiB: 4.2 s at 8 Mbps, milliseconds over loopback.
    expect(seconds).toBeLessThan(1);
  });

  it('a limit set while streams run unlimited reaches them too', async () => {
    // Larger than what loopback socket buffers hold, so most of it is still to send when the limit comes.
    const data = randomBytes(48_000_000);
    place('/Movies/Later.mkv', write('later.mkv', data), { kind: 'local' });
    const later = new PlaybackStreamer({ registry, serviceToken: TOKEN, rateBytesPerSecond: 0, logger });
    const laterAgent = await startAgent(later, files);
    try {
      const response = await request(
        `${laterAgent.url}/play?path=${encodeURIComponent('/Movies/Later.mkv')}`,
        {
          headers: { 'x-test-id': 'later' },
          // A slow reader: the stream is still running when the limit arrives.
          highWaterMark: 16 * 1024,
        },
      );
      let received = 0;
      const begin = performance.now();
      for await (const chunk of response.body) {
        received += (chunk as Buffer).length;
        if (received >= 100_000 && later.rateBytesPerSecond === 0) later.setRate(20_000_000);
        if (received < 100_000) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = (performance.now() - begin) / 1000;
      expect(received).toBe(data.length);
      // Unlimited the rest takes a few milliseconds; at 20 MB/s over a second (minus what was buffered).
      expect(seconds).toBeGreaterThan(1);
    } finally {
      await laterAgent.app.close();
    }
  });

  // 7
  it('readSmall returns a small file whole, through the file route', async () => {
    const text = '1\n00:00:01,000 --> 00:00:02,000\nAmélie\n';
    place('/Movies/Film.fr.srt', write('film.fr.srt', text), { kind: 'local' });
    const bytes = await streamer.readSmall(
      { nodeId: NODE, mountId: MOUNT, path: '/Movies/Film.fr.srt' },
      64 * 1024,
    );
    expect(bytes.toString('utf8')).toBe(text);
    const asked = storage.log.filter((entry) => entry.path === '/Movies/Film.fr.srt');
    expect(asked.map((entry) => `${entry.route} ${entry.method} ${entry.range ?? '-'}`)).toEqual([
      'file GET -',
    ]);

    // Exactly maxBytes is still fine.
    const exact = randomBytes(10_000);
    place('/Movies/Exact.srt', write('exact.srt', exact), { kind: 'local' });
    const read = await streamer.readSmall(
      { nodeId: NODE, mountId: MOUNT, path: '/Movies/Exact.srt' },
      10_000,
    );
    expect(read.equals(exact)).toBe(true);
  });

  it('readSmall: a file above maxBytes is 413 FILE_TOO_LARGE, a missing one 404, no storage node 503', async () => {
    place('/Movies/Big.srt', write('big.srt', randomBytes(300_000)), { kind: 'local' });
    const failure = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AppError);
      return { status: (error as AppError).statusCode, code: (error as AppError).code };
    };
    expect(
      await failure(streamer.readSmall({ nodeId: NODE, mountId: MOUNT, path: '/Movies/Big.srt' }, 64 * 1024)),
    ).toEqual({ status: 413, code: 'FILE_TOO_LARGE' });
    expect(
      await failure(streamer.readSmall({ nodeId: NODE, mountId: MOUNT, path: '/Movies/Big.srt' }, 299_999)),
    ).toEqual({ status: 413, code: 'FILE_TOO_LARGE' });
    expect(
      await failure(
        streamer.readSmall({ nodeId: NODE, mountId: MOUNT, path: '/Movies/Nothing.srt' }, 64 * 1024),
      ),
    ).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(
      await failure(
        streamer.readSmall({ nodeId: 'offline-node', mountId: MOUNT, path: '/Movies/Big.srt' }, 1024),
      ),
    ).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
  });

  // 8
  it('attachmentName sets Content-Disposition: attachment with the UTF-8 encoded name', async () => {
    place('/Movies/Download.mkv', mediaFile, { kind: 'local' });
    const name = 'Amélie & 東京 100%.mkv';
    const answer = await play(agent, { path: '/Movies/Download.mkv', attach: name });
    expect(answer.status).toBe(200);
    const disposition = String(answer.headers['content-disposition']);
    expect(disposition).toContain("filename*=UTF-8''Am%C3%A9lie%20%26%20%E6%9D%B1%E4%BA%AC%20100%25.mkv");
    expect(parseDisposition(disposition)).toEqual({ type: 'attachment', parameters: { filename: name } });
    expect(sha(answer.body)).toBe(sha(media));

    const head = await play(agent, { path: '/Movies/Download.mkv', attach: name }, { method: 'HEAD' });
    expect(head.headers['content-disposition']).toBe(answer.headers['content-disposition']);

    const plain = await play(agent, { path: '/Movies/Download.mkv' }, { method: 'HEAD' });
    expect(plain.headers['content-disposition']).toBeUndefined();
  });
});
