import type { ErrorCode } from '@svc/contracts';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { fileEtag, httpDate, ifRangeMatches } from '../../../platform/http/file-delivery/conditional.js';
import { contentTypeOf } from '../../../platform/http/file-delivery/content-type.js';
import {
  contentRange,
  parseRange,
  rangeLength,
  unsatisfiedContentRange,
  type ByteRange,
  type RangeResult,
} from '../../../platform/http/file-delivery/range.js';
import { SourceError, type MediaBody, type MediaFacts, type MediaSource } from './sources.js';
import type { TokenBucket } from './token-bucket.js';

/**
 * Answers GET and HEAD for a media file on a node:http response (or Fastify's `reply.raw` after
 * `reply.hijack()`): 200, 206 or 416 with the headers players and proxies need, the bytes streamed with
 * backpressure through an optional token bucket, and the bytes the client's socket really accepted counted
 * (docs/streaming.md).
 */

export interface SendMediaOptions {
  /** Content-Type; else derived from `container`, then from the extension of `name`. */
  contentType?: string;
  container?: string | null;
  name?: string | null;
  /** Output bandwidth limit; writes are sliced to its burst. */
  bucket?: TokenBucket | null;
  /** Body bytes the client's socket accepted since the last call: at least every `reportBytes` or `reportMs`, and at the end. */
  onBytes?: (delta: number) => void;
  reportBytes?: number;
  reportMs?: number;
  /** Cache-Control of 200/206 answers (default `private, no-transform`). */
  cacheControl?: string;
  /** Further headers (e.g. Content-Disposition of downloads); framing and encoding headers are ignored. */
  headers?: Record<string, string>;
  /** Ends the answer early (e.g. a policy revoked the session): the connection is closed. */
  signal?: AbortSignal;
}

export interface SendMediaResult {
  status: number;
  /** Body bytes the client's socket accepted (headers not counted). */
  bytesSent: number;
  /** Body bytes the answer announced (Content-Length); 0 for HEAD. */
  bytesPlanned: number;
  /** Every announced byte was accepted by the socket and the answer ended normally. */
  completed: boolean;
  /** Why the answer ended early: the client left, `options.signal` fired, or the source failed. */
  interrupted?: 'client' | 'aborted' | 'source';
  /** The source's failure (answered as 404/502 when it came before the headers). */
  error?: unknown;
}

export const REPORT_BYTES = 1024 * 1024;
export const REPORT_MS = 1000;
export const DEFAULT_CACHE_CONTROL = 'private, no-transform';

/** Raised on the internal signal when the client's connection closed before the answer was complete. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}

/** Headers a caller may not set through `options.headers`: the sender owns framing and encoding. */
const RESERVED = new Set([
  'content-length',
  'content-range',
  'content-encoding',
  'transfer-encoding',
  'content-type',
  'accept-ranges',
  'connection',
]);

/** The storage node's ETag formula, so a file has the same ETag whichever way it is read. */
export function etagOf(facts: MediaFacts): string | null {
  if (facts.etag) return facts.etag;
  if (!facts.mtime) return null;
  return fileEtag(facts.size, facts.mtime);
}

/** The range to serve: If-Range that does not match the current file turns a range request into a full one. */
function rangeOf(
  req: IncomingMessage,
  size: number,
  etag: string | null,
  lastModified: string | null,
): RangeResult {
  const header = req.headers.range;
  if (header === undefined) return { kind: 'none' };
  const ifRange = req.headers['if-range'];
  if (typeof ifRange === 'string' && !ifRangeMatches(ifRange, etag, lastModified)) return { kind: 'none' };
  return parseRange(header, size);
}

/** Counts accepted bytes and reports them in deltas. */
class ByteMeter {
  total = 0;
  private reported = 0;
  private stopped = false;
  private readonly timer: NodeJS.Timeout | null;

  constructor(
    private readonly onBytes: ((delta: number) => void) | undefined,
    private readonly everyBytes: number,
    everyMs: number,
  ) {
    this.timer = onBytes ? setInterval(() => this.flush(), everyMs) : null;
    this.timer?.unref();
  }

  add(bytes: number): void {
    // A write callback later than the final report (bounded wait in sendMedia) is not counted: the
    // reported deltas always add up to bytesSent.
    if (this.stopped) return;
    this.total += bytes;
    if (this.total - this.reported >= this.everyBytes) this.flush();
  }

  flush(): void {
    const delta = this.total - this.reported;
    if (delta <= 0 || !this.onBytes) return;
    this.reported = this.total;
    try {
      this.onBytes(delta);
    } catch {
      // Accounting must never break streaming.
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.flush();
  }
}

function errorJson(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/**
 * Waits for 'drain' on one response, with one abort listener for the whole answer (an EventTarget listener
 * added and removed per wait cost more than the wait).
 */
class DrainWaiter {
  private waiting: (() => void) | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.waiting?.(), { once: true });
  }

  wait(): Promise<void> {
    this.signal.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.res.off('drain', done);
        this.waiting = null;
        if (this.signal.aborted) reject(this.signal.reason as Error);
        else resolve();
      };
      this.waiting = done;
      this.res.on('drain', done);
    });
  }
}

/** Resolves once the answer was flushed ('finish') or the connection closed. */
function ended(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve();
    };
    res.on('finish', done);
    res.on('close', done);
  });
}

/**
 * Sends `source` as the answer to `req`. Takes ownership of the source: it is closed (file descriptor,
 * upstream connection) before the promise resolves. Never rejects.
 */
export async function sendMedia(
  req: IncomingMessage,
  res: ServerResponse,
  source: MediaSource,
  options: SendMediaOptions = {},
): Promise<SendMediaResult> {
  const controller = new AbortController();
  const { signal } = controller;
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  };
  res.on('close', onClose);
  if (res.destroyed || req.socket?.destroyed) controller.abort(new ClientGoneError());
  const onCallerAbort = () => controller.abort(options.signal?.reason ?? new Error('aborted'));
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const meter = new ByteMeter(
    options.onBytes,
    options.reportBytes ?? REPORT_BYTES,
    options.reportMs ?? REPORT_MS,
  );
  let inflight = 0;
  let settled: (() => void) | null = null;
  let body: MediaBody | null = null;
  /** The body went out whole ('finish'); `completed` also needs every write callback to have counted. */
  let finished = false;
  const result: SendMediaResult = { status: 0, bytesSent: 0, bytesPlanned: 0, completed: false };

  /**
   * Write callbacks still running are counted first (bounded). A dead socket calls back at once the
   * writes it had, and never those made after it died but before its 'close' (node:http drops them):
   * nothing is left to count after one turn, and the source must not stay open waiting.
   */
  const writesSettled = async () => {
    if (inflight === 0) return;
    if (res.socket?.destroyed ?? res.destroyed) {
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    await Promise.race([
      new Promise<void>((resolve) => (settled = resolve)),
      new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
    ]);
  };

  const interruption = (): SendMediaResult['interrupted'] =>
    signal.reason instanceof ClientGoneError ? 'client' : 'aborted';

  /** An answer without file bytes (errors, 405), when the headers are not out yet. */
  const plain = (status: number, headers: OutgoingHttpHeaders, text: string | null) => {
    result.status = status;
    if (res.headersSent || res.destroyed) return;
    const payload = text === null || req.method === 'HEAD' ? null : Buffer.from(text);
    res.writeHead(status, {
      ...headers,
      ...(text === null
        ? {}
        : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
    });
    res.end(payload ?? undefined);
  };

  /** Ended by the client or the caller: no answer is owed any more, the connection is closed. */
  const stopped = () => {
    result.interrupted = interruption();
    res.destroy();
  };

  const failBeforeHeaders = (error: unknown) => {
    if (signal.aborted) {
      stopped();
      return;
    }
    result.interrupted = 'source';
    result.error = error;
    if (error instanceof SourceError) {
      plain(error.status, { 'cache-control': 'no-store' }, errorJson(error.code, error.message));
    } else {
      plain(
        502,
        { 'cache-control': 'no-store' },
        errorJson('UPSTREAM_UNAVAILABLE', 'the file could not be read'),
      );
    }
  };

  try {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      plain(405, { allow: 'GET, HEAD' }, errorJson('METHOD_NOT_ALLOWED', 'only GET and HEAD'));
      return result;
    }
    if (signal.aborted) {
      stopped();
      return result;
    }

    let facts: MediaFacts;
    try {
      facts = await source.facts(signal);
    } catch (error) {
      failBeforeHeaders(error);
      return result;
    }
    const etag = etagOf(facts);
    const lastModified = facts.mtime ? httpDate(facts.mtime) : null;
    const headers: OutgoingHttpHeaders = {
      'accept-ranges': 'bytes',
      'cache-control': options.cacheControl ?? DEFAULT_CACHE_CONTROL,
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
      ...(etag ? { etag } : {}),
      ...(lastModified ? { 'last-modified': lastModified } : {}),
    };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (!RESERVED.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }

    const ranges = rangeOf(req, facts.size, etag, lastModified);
    if (ranges.kind === 'unsatisfiable' || ranges.kind === 'malformed') {
      plain(
        416,
        { ...headers, 'content-range': unsatisfiedContentRange(facts.size), 'cache-control': 'no-store' },
        errorJson('RANGE_NOT_SATISFIABLE', 'the range lies outside the file or cannot be read'),
      );
      return result;
    }
    // Several ranges: only the first satisfiable one is answered (docs/streaming.md).
    const range: ByteRange | null =
      ranges.kind === 'ranges'
        ? ranges.ranges[0]!
        : facts.size > 0
          ? { start: 0, end: facts.size - 1 }
          : null;
    const status = ranges.kind === 'ranges' ? 206 : 200;
    headers['content-type'] =
      options.contentType ?? contentTypeOf({ container: options.container, name: options.name });
    headers['content-length'] = range ? rangeLength(range) : 0;
    if (status === 206) headers['content-range'] = contentRange(range!, facts.size);
    result.status = status;

    if (method === 'HEAD' || !range) {
      res.writeHead(status, headers);
      res.end();
      await ended(res);
      finished = res.writableFinished;
      return result;
    }

    try {
      body = await source.open(range, signal);
    } catch (error) {
      failBeforeHeaders(error);
      return result;
    }
    result.bytesPlanned = rangeLength(range);
    res.writeHead(status, headers);

    const planned = result.bytesPlanned;
    const reader = body;
    // Checked per write: a bucket of rate 0 may get a rate while the answer runs (a new policy).
    const bucket = options.bucket ?? null;
    const drain = new DrainWaiter(res, signal);
    let queued = 0;
    let next: Promise<Buffer | null> | null = reader.read();
    // A read still running when the loop ends early must not become an unhandled rejection.
    next.catch(() => undefined);
    try {
      while (next) {
        const chunk: Buffer | null = await next;
        if (chunk === null) break;
        if (queued + chunk.length > planned)
          throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'too many bytes', 'io');
        // Read ahead while this chunk is written.
        next = queued + chunk.length < planned ? reader.read() : null;
        next?.catch(() => undefined);
        // The chunk goes back to the source once the loop and every write callback are done with it.
        let holders = 1;
        const letGo = () => {
          if (--holders === 0) reader.release(chunk);
        };
        for (let offset = 0; offset < chunk.length;) {
          let end = chunk.length;
          if (bucket && !bucket.unlimited) {
            // One burst per write (the spec's burst on the wire), plus the credit a late timer left in
            // the bucket: that goes out in the same write rather than in writes of its own.
            end = Math.min(chunk.length, offset + bucket.burst);
            if (!bucket.tryTake(end - offset)) await bucket.take(end - offset, signal);
            end += bucket.takeAvailable(chunk.length - end);
          }
          signal.throwIfAborted();
          const piece = offset === 0 && end === chunk.length ? chunk : chunk.subarray(offset, end);
          offset = end;
          inflight++;
          holders++;
          const accepted = res.write(piece, (error) => {
            inflight--;
            if (!error) meter.add(piece.length);
            letGo();
            if (inflight === 0) settled?.();
          });
          queued += piece.length;
          if (!accepted) await drain.wait();
        }
        letGo();
      }
      if (queued !== planned) {
        throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'the source ended early', 'io');
      }
      res.end();
      await ended(res);
      finished = res.writableFinished;
      // `writableFinished` may be true before the last write callbacks ran (the socket took the bytes at once).
      await writesSettled();
      // The client has the whole answer now and may ask again at once: its bytes must count before any
      // further admission (quotas), not only after the sources are closed below.
      meter.flush();
    } catch (error) {
      if (signal.aborted) result.interrupted = interruption();
      else {
        result.interrupted = 'source';
        result.error = error;
      }
      // The headers are out: the only honest signal left is a cut connection.
      res.destroy();
    }
    return result;
  } catch (error) {
    // Not expected (a bug or a broken socket object): never leave the client hanging.
    result.error = error;
    result.interrupted ??= 'source';
    if (!res.headersSent) plain(500, {}, errorJson('INTERNAL_ERROR', 'the answer failed'));
    else res.destroy();
    return result;
  } finally {
    res.off('close', onClose);
    options.signal?.removeEventListener('abort', onCallerAbort);
    if (!signal.aborted) controller.abort(new Error('the answer ended'));
    // Write callbacks still running are counted before the last report (writesSettled: bounded).
    await writesSettled();
    await body?.close();
    await source.close();
    meter.stop();
    result.bytesSent = meter.total;
    if (finished) result.completed = meter.total === result.bytesPlanned;
  }
}
