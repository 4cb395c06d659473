import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A loopback HTTP proxy in front of an origin (a WebDAV server, a storage node) for tests of a slow,
 * far-away link: every request waits `latencyMs` before it is forwarded, and the response bodies of all
 * requests together flow at no more than `bytesPerSecond` (one shared link). Request bodies pass
 * unthrottled. It counts requests and response bytes so tests can say what crossed the link; the bytes
 * of GET answers are counted apart, since only they carry file content (a WebDAV PROPFIND answers XML).
 */

export interface ThrottlingProxyOptions {
  /** Origin base URL, e.g. http://127.0.0.1:8080. */
  target: string;
  latencyMs: number;
  /** Response bytes per second over all requests; 0 = unlimited. */
  bytesPerSecond: number;
}

export interface ThrottlingProxy {
  url: string;
  stats: { requests: number; responseBytes: number; getBytes: number; ranges: string[] };
  /** Every request in arrival order: its Range header and the answer bytes that crossed the link. */
  log: ProxiedRequest[];
  /** Requests whose answer is still flowing (a cancelled transfer trickles on until the origin stops). */
  readonly active: number;
  /** Changes the link while it runs. */
  set(options: Partial<Omit<ThrottlingProxyOptions, 'target'>>): void;
  close(): Promise<void>;
}

export interface ProxiedRequest {
  method: string;
  range: string | null;
  /** Answer bytes that passed the throttle (crossed the link), so far. */
  bytes: number;
  /** Milliseconds since the proxy started, when the request arrived and when its answer closed. */
  arrivedMs: number;
  closedMs: number | null;
}

/** A shared byte budget refilled continuously; waiters take bytes in order. */
class Link {
  private tokens = 0;
  private last = Date.now();

  constructor(public bytesPerSecond: number) {}

  /** Milliseconds to wait before `bytes` may pass (and takes them). */
  take(bytes: number): number {
    if (this.bytesPerSecond <= 0) return 0;
    const now = Date.now();
    // A small burst (50 ms of rate) keeps the pace smooth without timers for every tiny chunk.
    const burst = this.bytesPerSecond / 20;
    this.tokens = Math.min(burst, this.tokens + ((now - this.last) * this.bytesPerSecond) / 1000);
    this.last = now;
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.bytesPerSecond);
  }
}

/** Splits chunks into slices of at most 16 KiB and delays each until the link lets it pass. */
class Throttle extends Transform {
  constructor(
    private readonly link: Link,
    private readonly counted: (bytes: number) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    void this.pass(chunk).then(
      () => done(),
      (error: unknown) => done(error as Error),
    );
  }

  private async pass(chunk: Buffer): Promise<void> {
    for (let offset = 0; offset < chunk.length; offset += 16 * 1024) {
      const slice = chunk.subarray(offset, offset + 16 * 1024);
      const wait = this.link.take(slice.length);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.destroyed) return;
      this.counted(slice.length);
      this.push(slice);
    }
  }
}

export async function startThrottlingProxy(options: ThrottlingProxyOptions): Promise<ThrottlingProxy> {
  const target = new URL(options.target);
  let latencyMs = options.latencyMs;
  const link = new Link(options.bytesPerSecond);
  const stats = { requests: 0, responseBytes: 0, getBytes: 0, ranges: [] as string[] };
  const log: ProxiedRequest[] = [];
  const startedAt = performance.now();
  const agent = new http.Agent({ keepAlive: true });

  let active = 0;
  const server = http.createServer((request, response) => {
    stats.requests++;
    active++;
    let closed = false;
    let cut = () => undefined as void;
    const range = request.headers.range;
    const logged: ProxiedRequest = {
      method: request.method ?? 'GET',
      range: typeof range === 'string' ? range : null,
      bytes: 0,
      arrivedMs: performance.now() - startedAt,
      closedMs: null,
    };
    log.push(logged);
    response.on('close', () => {
      logged.closedMs = performance.now() - startedAt;
      closed = true;
      active--;
      cut();
    });
    if (typeof range === 'string') stats.ranges.push(range);
    const forward = () => {
      // The client left during the latency: nothing is asked of the origin.
      if (closed) return;
      const upstream = http.request(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: target.host },
          agent,
        },
        (answer) => {
          const isGet = request.method === 'GET';
          const throttle = new Throttle(link, (bytes) => {
            stats.responseBytes += bytes;
            logged.bytes += bytes;
            if (isGet) stats.getBytes += bytes;
          });
          cut = () => {
            answer.destroy();
            throttle.destroy();
          };
          if (closed) return cut();
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(throttle).pipe(response);
        },
      );
      upstream.on('error', () => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
      request.pipe(upstream);
    };
    if (latencyMs > 0) setTimeout(forward, latencyMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    log,
    get active() {
      return active;
    },
    set(change) {
      if (change.latencyMs !== undefined) latencyMs = change.latencyMs;
      if (change.bytesPerSecond !== undefined) link.bytesPerSecond = change.bytesPerSecond;
    },
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
