import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { Duplex, pipeline } from 'node:stream';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planFileResponse } from '../../../src/services/storage/file-response.js';
import { sendMedia, type SendMediaResult } from '../../../src/services/play-agent/stream/media-sender.js';
import {
  openLocalFile,
  upstreamFileSource,
  type MediaSource,
} from '../../../src/services/play-agent/stream/sources.js';
import { TokenBucket, mbpsToBytes } from '../../../src/services/play-agent/stream/token-bucket.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../../support/throttling-proxy.js';
import { waitUntil } from '../../support/wait.js';

const MiB = 1024 * 1024;
const TOKEN = 'svc_st_media_sender_test_token';
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What the upstream saw: requests and connections that closed before their answer was complete. */
interface UpstreamLog {
  requests: { method: string; path: string; range: string | undefined }[];
  cut: string[];
}

/** A stand-in for the storage node's internal file route, answering Range with the node's own planner. */
function startUpstream(dir: string, log: UpstreamLog): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    const name = url.searchParams.get('path') ?? '';
    log.requests.push({ method: req.method ?? '', path: name, range: req.headers.range });
    res.on('close', () => {
      if (!res.writableFinished) log.cut.push(name);
    });
    if (req.headers['x-svc-service-token'] !== TOKEN) {
      res.writeHead(401).end();
      return;
    }
    if (!/^\/api\/storage\/internal\/mounts\/m1\/file$/.test(url.pathname) || name === 'missing.mkv') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND"}}');
      return;
    }
    if (name === 'broken.mkv') {
      res.writeHead(500).end('boom');
      return;
    }
    const file = path.join(dir, name);
    const info = statSync(file);
    const plan = planFileResponse(
      req.method ?? 'GET',
      req.headers,
      { name, size: info.size, mtime: info.mtime },
      { attachment: false },
    );
    // Headers a play-agent must not pass on.
    res.writeHead(plan.status, { ...plan.headers, 'x-upstream-secret': 'do-not-copy', 'set-cookie': 'a=b' });
    if (!plan.range) {
      res.end();
      return;
    }
    pipeline(createReadStream(file, { start: plan.range.start, end: plan.range.end }), res, () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const base = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('media sender against real sockets', () => {
  let dir: string;
  let upstream: Server;
  let agent: Server;
  /** The upstream behind a link slower than the client (the sender then waits for upstream bytes). */
  let slowLink: ThrottlingProxy | null = null;
  const log: UpstreamLog = { requests: [], cut: [] };
  const results = new Map<
    string,
    { promise: Promise<SendMediaResult>; resolve: (r: SendMediaResult) => void }
  >();
  const reports = new Map<string, { at: number; delta: number }[]>();
  let small: Buffer; // 8 MiB of random bytes
  let seq = 0;

  const slot = (id: string) => {
    let entry = results.get(id);
    if (!entry) {
      let resolve!: (r: SendMediaResult) => void;
      const promise = new Promise<SendMediaResult>((r) => (resolve = r));
      entry = { promise, resolve };
      results.set(id, entry);
    }
    return entry;
  };
  const resultOf = (id: string) => slot(id).promise;

  /**
   * The play-agent stand-in: /local/<name> reads the file directly (checked against its size and mtime),
   * /upstream/<name> through the upstream. Query: rate (Mbps), size and mtime (expected by the caller),
   * known=1 (the upstream source gets size and mtime up front).
   */
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://agent');
    const id = String(req.headers['x-test-id'] ?? `anon-${seq++}`);
    const [, kind, name = ''] = url.pathname.split('/');
    const rate = Number(url.searchParams.get('rate') ?? 0);
    const file = path.join(dir, name);
    let source: MediaSource;
    if (kind === 'local') {
      const info = statSync(file, { throwIfNoEntry: false });
      const opened = await openLocalFile(file, {
        size: Number(url.searchParams.get('size') ?? info?.size ?? 0),
        mtime: url.searchParams.get('mtime') ?? info?.mtime ?? 0,
      });
      if (!opened.ok) {
        res.writeHead(409, { 'x-local': opened.reason }).end();
        slot(id).resolve({ status: 409, bytesSent: 0, bytesPlanned: 0, completed: false });
        return;
      }
      source = opened.source;
    } else {
      const info = statSync(file, { throwIfNoEntry: false });
      source = upstreamFileSource({
        baseUrl: url.searchParams.get('slow') && slowLink ? slowLink.url : base(upstream),
        mountId: 'm1',
        path: name,
        serviceToken: TOKEN,
        ...(url.searchParams.get('known') && info
          ? { known: { size: Number(url.searchParams.get('size') ?? info.size), mtime: info.mtime } }
          : {}),
      });
    }
    const events: { at: number; delta: number }[] = [];
    reports.set(id, events);
    const result = await sendMedia(req, res, source, {
      name,
      bucket: rate > 0 ? new TokenBucket(mbpsToBytes(rate)) : null,
      onBytes: (delta) => events.push({ at: performance.now(), delta }),
    });
    slot(id).resolve(result);
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-media-sender-'));
    small = randomBytes(8 * MiB);
    writeFileSync(path.join(dir, 'movie.mkv'), small);
    writeFileSync(path.join(dir, 'empty.mp4'), Buffer.alloc(0));
    // 64 MiB: the disconnect test needs a file much larger than the socket buffers.
    const big = Buffer.alloc(64 * MiB);
    for (let i = 0; i < 64; i++) small.copy(big, i * MiB, (i % 8) * MiB, ((i % 8) + 1) * MiB);
    writeFileSync(path.join(dir, 'big.mkv'), big);
    writeFileSync(path.join(dir, 'broken.mkv'), 'x');
    mkdirSync(path.join(dir, 'folder.mkv'));
    upstream = await startUpstream(dir, log);
    agent = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        res.destroy();
        throw error;
      });
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    agent?.closeAllConnections();
    upstream?.closeAllConnections();
    await new Promise((resolve) => agent?.close(resolve));
    await new Promise((resolve) => upstream?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
    const id = `t${seq++}`;
    const response = await request(`${base(agent)}${url}`, {
      method,
      headers: { ...headers, 'x-test-id': id },
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, body, result: await resultOf(id), id };
  }

  describe.each(['local', 'upstream'])('from the %s source', (kind) => {
    const url = (name: string, query = '') => `/${kind}/${name}${query}`;

    it('answers 200 with the whole file and the headers players and proxies need', async () => {
      const response = await get(url('movie.mkv'), { 'accept-encoding': 'gzip, br' });
      expect(response.status).toBe(200);
      expect(sha(response.body)).toBe(sha(small));
      const info = statSync(path.join(dir, 'movie.mkv'));
      expect(response.headers).toMatchObject({
        'content-type': 'video/x-matroska',
        'content-length': String(small.length),
        'accept-ranges': 'bytes',
        'x-accel-buffering': 'no',
        'last-modified': new Date(Math.floor(info.mtimeMs / 1000) * 1000).toUTCString(),
      });
      expect(response.headers['cache-control']).toContain('no-transform');
      expect(response.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers['content-range']).toBeUndefined();
      expect(response.headers['x-upstream-secret']).toBeUndefined();
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.result).toMatchObject({
        status: 200,
        bytesSent: small.length,
        bytesPlanned: small.length,
        completed: true,
      });
      const events = reports.get(response.id)!;
      expect(events.reduce((sum, event) => sum + event.delta, 0)).toBe(small.length);
      // At least every MiB (a delta is at most one MiB plus one write).
      expect(events.length).toBeGreaterThanOrEqual(small.length / (3 * MiB));
    });

    const ranges: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=100-1048675', 100, 1048675],
      ['bytes=5000000-', 5000000, 8 * MiB - 1],
      ['bytes=-500', 8 * MiB - 500, 8 * MiB - 1],
      ['bytes=-99999999', 0, 8 * MiB - 1],
      ['bytes=8388000-99999999999', 8388000, 8 * MiB - 1],
      ['bytes=10-19,30-39', 10, 19],
      ['Bytes = 7-7 ', 7, 7],
    ];
    it.each(ranges)('answers %s with 206 and exactly those bytes', async (range, start, end) => {
      const before = log.requests.length;
      const response = await get(url('movie.mkv'), { range });
      expect(response.status).toBe(206);
      expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${small.length}`);
      expect(response.headers['content-length']).toBe(String(end - start + 1));
      expect(sha(response.body)).toBe(sha(small.subarray(start, end + 1)));
      expect(response.result).toMatchObject({ status: 206, bytesSent: end - start + 1, completed: true });
      if (kind === 'upstream') {
        // The client's range went upstream resolved to exactly the bytes needed.
        const gets = log.requests.slice(before).filter((r) => r.method === 'GET');
        expect(gets.map((r) => r.range)).toEqual([`bytes=${start}-${end}`]);
      }
    });

    const refused = [
      'bytes=8388608-',
      'bytes=0-1a',
      'bytes=-0',
      'bytes=1234567890123456789012-',
      `bytes=${Array.from({ length: 200 }, (_, i) => `${i}-${i}`).join(',')}`,
    ];
    it.each(
      refused.map((range): [string, string] => [
        range.length > 60 ? `${range.slice(0, 40)}… (200 ranges)` : range,
        range,
      ]),
    )('answers %s with 416 and streams nothing', async (_label, range) => {
      const before = log.requests.length;
      const response = await get(url('movie.mkv'), { range });
      expect(response.status).toBe(416);
      expect(response.headers['content-range']).toBe(`bytes */${small.length}`);
      expect(response.body.length).toBeLessThan(200);
      expect(JSON.parse(response.body.toString())).toMatchObject({
        error: { code: 'RANGE_NOT_SATISFIABLE' },
      });
      expect(response.result).toMatchObject({ status: 416, bytesSent: 0 });
      expect(reports.get(response.id)).toEqual([]);
      expect(log.requests.slice(before).filter((r) => r.method === 'GET')).toEqual([]);
    });

    it('answers HEAD with the headers and no body', async () => {
      const full = await get(url('movie.mkv'), {}, 'HEAD');
      expect(full.status).toBe(200);
      expect(full.headers['content-length']).toBe(String(small.length));
      expect(full.headers['accept-ranges']).toBe('bytes');
      expect(full.body.length).toBe(0);
      expect(full.result).toMatchObject({ status: 200, bytesSent: 0, bytesPlanned: 0 });
      const part = await get(url('movie.mkv'), { range: 'bytes=-100' }, 'HEAD');
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(
        `bytes ${small.length - 100}-${small.length - 1}/${small.length}`,
      );
      expect(part.headers['content-length']).toBe('100');
      expect(part.body.length).toBe(0);
    });

    it('honours If-Range: the current ETag keeps the range, another one gets the whole file', async () => {
      const { headers } = await get(url('movie.mkv'), {}, 'HEAD');
      const same = await get(url('movie.mkv'), { range: 'bytes=0-9', 'if-range': String(headers.etag) });
      expect(same.status).toBe(206);
      const other = await get(url('movie.mkv'), { range: 'bytes=0-9', 'if-range': '"0-0"' });
      expect(other.status).toBe(200);
      expect(other.body.length).toBe(small.length);
    });

    it('answers an empty file with 200 and no bytes', async () => {
      const response = await get(url('empty.mp4'));
      expect(response.status).toBe(200);
      expect(response.headers['content-length']).toBe('0');
      expect(response.headers['content-type']).toBe('video/mp4');
      const ranged = await get(url('empty.mp4'), { range: 'bytes=0-' });
      expect(ranged.status).toBe(416);
      expect(ranged.headers['content-range']).toBe('bytes */0');
    });

    it('stops reading when the client leaves after about 1 MB and counts what was written', async () => {
      const id = `disconnect-${kind}`;
      const fdsBefore = openFdsOn(path.join(dir, 'big.mkv'));
      const received = await readThenHangUp(`${url('big.mkv')}`, id, MiB);
      const result = await resultOf(id);
      expect(result.status).toBe(200);
      expect(result.interrupted).toBe('client');
      expect(result.completed).toBe(false);
      // What the socket accepted: at least what the client read, far less than the file (the rest of
      // the difference sat in the kernel's socket buffers when the client hung up).
      expect(result.bytesSent).toBeGreaterThanOrEqual(received);
      expect(result.bytesSent).toBeLessThan(received + 12 * MiB);
      expect(result.bytesPlanned).toBe(64 * MiB);
      const events = reports.get(id)!;
      expect(events.reduce((sum, event) => sum + event.delta, 0)).toBe(result.bytesSent);
      if (kind === 'upstream') {
        // The upstream saw its connection closed before its answer was complete.
        await waitUntil(() => log.cut.includes('big.mkv'));
      }
      // No file descriptor stays open on the file (the upstream stand-in closes its own a little later).
      if (kind === 'local') expect(openFdsOn(path.join(dir, 'big.mkv'))).toBe(fdsBefore);
      else await waitUntil(() => openFdsOn(path.join(dir, 'big.mkv')) === fdsBefore);
    });

    it('limits the rate to 20 Mbps within 10 % over about 2 s, reporting at least every MiB', async () => {
      const bytes = 5_000_000; // 2 s at 2.5 MB/s
      const id = `rate-${kind}`;
      const response = await request(`${base(agent)}${url('big.mkv', '?rate=20')}`, {
        headers: { range: `bytes=0-${bytes - 1}`, 'x-test-id': id },
      });
      // Timed from the answer's headers (sent with the first burst) to its last byte.
      const started = performance.now();
      const body = Buffer.from(await response.body.arrayBuffer());
      const seconds = (performance.now() - started) / 1000;
      expect(response.statusCode).toBe(206);
      expect(body.length).toBe(bytes);
      expect(sha(body)).toBe(sha(small.subarray(0, bytes)));
      // 5 MB less the first 50 kB burst at 2.5 MB/s: 1.98 s.
      const rate = (bytes - 50_000) / seconds;
      expect(rate).toBeGreaterThan(mbpsToBytes(20) * 0.9);
      expect(rate).toBeLessThan(mbpsToBytes(20) * 1.1);
      expect(await resultOf(id)).toMatchObject({ status: 206, bytesSent: bytes, completed: true });
      const events = reports.get(id)!;
      expect(events.reduce((sum, event) => sum + event.delta, 0)).toBe(bytes);
      for (let i = 1; i < events.length; i++) {
        expect(events[i]!.at - events[i - 1]!.at).toBeLessThan(1100);
        // 1 MiB unreported plus one write; a write is at most one read (1 MiB), also when a late timer's
        // credit rides along with a burst.
        expect(events[i]!.delta).toBeLessThanOrEqual(2 * MiB);
      }
    });

    it('reports at least once a second when the bytes come slowly', async () => {
      const id = `slow-${kind}`;
      const response = await request(`${base(agent)}${url('big.mkv', '?rate=1.6')}`, {
        headers: { range: 'bytes=0-299999', 'x-test-id': id },
      });
      const started = performance.now();
      expect((await response.body.arrayBuffer()).byteLength).toBe(300_000);
      expect(response.statusCode).toBe(206);
      expect(await resultOf(id)).toMatchObject({ bytesSent: 300_000, completed: true });
      expect(performance.now() - started).toBeGreaterThan(1300);
      // 300 kB at 200 kB/s: 1.5 s, far below a MiB, so reported by time (plus the final report).
      const events = reports.get(id)!;
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events.reduce((sum, event) => sum + event.delta, 0)).toBe(300_000);
    });
  });

  describe('local source', () => {
    it('reports a size or mtime mismatch, a missing file, a folder and a FIFO so the caller can fall back', async () => {
      const file = path.join(dir, 'movie.mkv');
      const info = statSync(file);
      const mismatch = await openLocalFile(file, { size: info.size + 1, mtime: info.mtime });
      expect(mismatch).toMatchObject({ ok: false, reason: 'mismatch', actual: { size: info.size } });
      const older = await openLocalFile(file, { size: info.size, mtime: info.mtimeMs - 1000 });
      expect(older).toMatchObject({ ok: false, reason: 'mismatch' });
      const iso = await openLocalFile(file, { size: info.size, mtime: info.mtime.toISOString() });
      expect(iso.ok).toBe(true);
      if (iso.ok) await iso.source.close();
      expect(await openLocalFile(path.join(dir, 'nothing.mkv'), null)).toMatchObject({
        ok: false,
        reason: 'not-found',
      });
      expect(await openLocalFile(path.join(dir, 'folder.mkv'), null)).toMatchObject({
        ok: false,
        reason: 'not-a-file',
      });
      const fifo = path.join(dir, 'pipe.mkv');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      expect(await openLocalFile(fifo, null)).toMatchObject({ ok: false, reason: 'not-a-file' });
      // Nothing stays open after any of these.
      expect(openFdsOn(file)).toBe(0);
    });

    it('detects a file changed after the storage node located it', async () => {
      writeFileSync(path.join(dir, 'changing.mkv'), 'abc');
      const info = statSync(path.join(dir, 'changing.mkv'));
      utimesSync(path.join(dir, 'changing.mkv'), info.atime, new Date(info.mtimeMs + 5000));
      const response = await get(
        `/local/changing.mkv?size=3&mtime=${encodeURIComponent(info.mtime.toISOString())}`,
      );
      expect(response.status).toBe(409);
      expect(response.headers['x-local']).toBe('mismatch');
    });
  });

  describe('upstream source', () => {
    it('maps upstream 404 to 404 and other failures to 502, before any header', async () => {
      const missing = await get('/upstream/missing.mkv');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body.toString())).toMatchObject({ error: { code: 'NOT_FOUND' } });
      const broken = await get('/upstream/broken.mkv', { range: 'bytes=0-' });
      expect(broken.status).toBe(502);
      expect(JSON.parse(broken.body.toString())).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE' } });
      expect(broken.result.interrupted).toBe('source');
    });

    it('refuses an upstream whose file no longer has the size it was known by (502)', async () => {
      const response = await get('/upstream/movie.mkv?known=1&size=9000000', { range: 'bytes=0-99' });
      expect(response.status).toBe(502);
      expect(response.result.bytesSent).toBe(0);
    });

    it('answers 502 when the upstream cannot be reached', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const dead = base(closed);
      await new Promise((resolve) => closed.close(resolve));
      const server = createServer((req, res) => {
        void sendMedia(
          req,
          res,
          upstreamFileSource({ baseUrl: dead, mountId: 'm1', path: 'a.mkv', serviceToken: TOKEN }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const response = await request(`${base(server)}/`);
      expect(response.statusCode).toBe(502);
      await response.body.dump();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('with known facts makes no HEAD', async () => {
      const before = log.requests.length;
      const response = await get('/upstream/movie.mkv?known=1', { range: 'bytes=1-2' });
      expect(response.status).toBe(206);
      expect(log.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
    });
  });

  describe('byte accounting', () => {
    it('counts a write only when the socket took it, not when it was handed over', async () => {
      // A socket that takes the first write (headers + the first MiB) and then stalls, like a full
      // kernel buffer in front of a client that stopped reading, and is then closed.
      const held: ((error: Error) => void)[] = [];
      let accepted = 0;
      const socket = new Duplex({
        read() {},
        write(chunk: Buffer, _encoding, callback) {
          if (accepted < MiB) {
            accepted += chunk.length;
            callback();
          } else held.push(callback);
        },
        destroy(error, callback) {
          // As a TCP socket does: writes still pending fail.
          for (const pending of held.splice(0)) pending(new Error('socket closed'));
          callback(error);
        },
      });
      const req = new IncomingMessage(socket as unknown as Socket);
      req.method = 'GET';
      req.headers = {};
      const res = new ServerResponse(req);
      res.assignSocket(socket as unknown as Socket);
      // What node:http's connection listener does for a real socket.
      socket.on('drain', () => res.emit('drain'));
      const opened = await openLocalFile(path.join(dir, 'movie.mkv'), null);
      if (!opened.ok) throw new Error(opened.reason);
      const deltas: number[] = [];
      const sending = sendMedia(req, res, opened.source, { onBytes: (delta) => deltas.push(delta) });
      await waitUntil(() => held.length > 0);
      // The sender has handed over more than the socket took and waits for 'drain'.
      await waitUntil(() => res.writableNeedDrain, 'the sender to wait for drain');
      socket.destroy();
      const result = await sending;
      expect(result).toMatchObject({ status: 200, interrupted: 'client', completed: false });
      expect(result.bytesSent).toBe(MiB);
      expect(deltas.reduce((a, b) => a + b, 0)).toBe(MiB);
    });
  });

  describe('a client that resets the connection while bytes flow', () => {
    it('closes the source at once: no wait for write callbacks a dead socket never calls', async () => {
      // A TCP socket is destroyed at once on a reset but emits 'close' only once its handle has closed,
      // later in the same turn of the event loop; node:http drops the callback of a write made in
      // between (the write returns false, nothing calls back). Upstream bytes arriving in that turn make
      // such writes. The sender used to wait a fixed second for those callbacks before closing its
      // source: a cache entry's run stayed claimed, the upstream stayed open. Several resets.
      const port = (agent.address() as AddressInfo).port;
      slowLink = await startThrottlingProxy({
        target: base(upstream),
        latencyMs: 0,
        bytesPerSecond: 12 * MiB,
      });
      const waits: number[] = [];
      for (let attempt = 0; attempt < 12; attempt++) {
        const id = `reset-${attempt}`;
        const resetAt = await new Promise<number>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () =>
            socket.write(
              `GET /upstream/big.mkv?known=1&slow=1 HTTP/1.1\r\nHost: agent\r\nx-test-id: ${id}\r\n\r\n`,
            ),
          );
          let received = 0;
          socket.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received >= 2 * MiB && !socket.destroyed) {
              socket.resetAndDestroy();
              resolve(performance.now());
            }
          });
          socket.on('error', reject);
        });
        const result = await resultOf(id);
        waits.push(performance.now() - resetAt);
        expect(result.interrupted).toBe('client');
      }
      await slowLink.close();
      slowLink = null;
      expect(Math.max(...waits)).toBeLessThan(500);
    });
  });

  describe('caller abort', () => {
    it('ends the answer when the caller aborts: before the headers and while streaming', async () => {
      const file = path.join(dir, 'big.mkv');
      const outcomes: SendMediaResult[] = [];
      const server = createServer((req, res) => {
        const controller = new AbortController();
        const early = req.url === '/early';
        if (early) controller.abort(new Error('revoked'));
        else setTimeout(() => controller.abort(new Error('revoked')), 300);
        void openLocalFile(file, null).then(async (opened) => {
          if (!opened.ok) throw new Error(opened.reason);
          outcomes.push(
            await sendMedia(req, res, opened.source, {
              bucket: new TokenBucket(mbpsToBytes(8)),
              signal: controller.signal,
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        await expect(request(`${base(server)}/early`)).rejects.toThrow();
        await waitUntil(() => outcomes.length === 1);
        expect(outcomes[0]).toMatchObject({ status: 0, interrupted: 'aborted', bytesSent: 0 });

        const response = await request(`${base(server)}/late`);
        expect(response.statusCode).toBe(200);
        await expect(response.body.arrayBuffer()).rejects.toThrow();
        await waitUntil(() => outcomes.length === 2);
        expect(outcomes[1]).toMatchObject({ status: 200, interrupted: 'aborted', completed: false });
        // About 300 ms at 1 MB/s.
        expect(outcomes[1]!.bytesSent).toBeGreaterThan(100_000);
        expect(outcomes[1]!.bytesSent).toBeLessThan(2_000_000);
        expect(openFdsOn(file)).toBe(0);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('curl', () => {
    const curl = (args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> =>
      new Promise((resolve) => {
        const child = spawn('curl', ['-s', ...args]);
        const out: Buffer[] = [];
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr }));
      });

    it.each(['local', 'upstream'])(
      'serves curl -r, suffix ranges, resumes and refusals (%s)',
      async (kind) => {
        const url = `${base(agent)}/${kind}/movie.mkv`;
        const out = path.join(dir, `curl-${kind}.bin`);
        // -r a-b
        let run = await curl(['-r', '1000-1999', '-o', out, '-w', '%{http_code}', url]);
        expect(run.stdout.toString()).toBe('206');
        expect(sha(readFileSync(out))).toBe(sha(small.subarray(1000, 2000)));
        // a suffix range
        run = await curl(['-r', '-4096', '-o', out, '-w', '%{http_code}', url]);
        expect(run.stdout.toString()).toBe('206');
        expect(sha(readFileSync(out))).toBe(sha(small.subarray(small.length - 4096)));
        // resume a partial download (-C -): curl sends bytes=<size of the file>-
        writeFileSync(out, small.subarray(0, 3 * MiB + 17));
        run = await curl(['-C', '-', '-o', out, '-w', '%{http_code}', url]);
        expect(run.stdout.toString()).toBe('206');
        expect(sha(readFileSync(out))).toBe(sha(small));
        // a malformed range: 416 and no file bytes
        run = await curl(['-H', 'Range: bytes=0-1a', '-o', out, '-w', '%{http_code}', url]);
        expect(run.stdout.toString()).toBe('416');
        expect(readFileSync(out).length).toBeLessThan(200);
        // HEAD
        run = await curl(['-I', url]);
        expect(run.stdout.toString()).toMatch(/^HTTP\/1\.1 200/);
        expect(run.stdout.toString()).toMatch(new RegExp(`content-length: ${small.length}`, 'i'));
        expect(run.stdout.toString()).not.toMatch(/content-encoding/i);
        // --compressed asks for gzip: still the identity bytes
        run = await curl(['--compressed', '-r', '0-99', '-D', '-', '-o', out, url]);
        expect(run.stdout.toString()).not.toMatch(/content-encoding/i);
        expect(sha(readFileSync(out))).toBe(sha(small.subarray(0, 100)));
      },
    );
  });

  /** Reads `url` over a raw socket until `bytes` of body arrived, then destroys the socket. */
  function readThenHangUp(url: string, id: string, bytes: number): Promise<number> {
    const port = (agent.address() as AddressInfo).port;
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET ${url} HTTP/1.1\r\nHost: agent\r\nx-test-id: ${id}\r\n\r\n`);
      });
      let head = Buffer.alloc(0);
      let body = -1;
      socket.on('data', (chunk: Buffer) => {
        if (body < 0) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          body = head.length - end - 4;
        } else body += chunk.length;
        if (body >= bytes) {
          socket.destroy();
          resolve(body);
        }
      });
      socket.on('error', reject);
    });
  }
});

/** File descriptors of this process open on `file`. */
function openFdsOn(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count++;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}
