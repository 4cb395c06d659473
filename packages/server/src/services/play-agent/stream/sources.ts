import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { EXPECTED_SIZE_HEADER } from '@svc/contracts';
import {
  parseContentRange,
  rangeHeader,
  rangeLength,
  type ByteRange,
} from '../../../platform/http/file-delivery/range.js';

/**
 * Where the bytes of a media file come from (docs/streaming.md, "Sources"):
 *
 * - a **local file** when the play-agent runs on the storage node's machine: the storage node's `locate`
 *   route names the real path, size and mtime; `openLocalFile` opens it and checks that fstat agrees
 *   (else the caller streams over HTTP);
 * - the storage node's **internal file route** over HTTP (`upstreamFileSource`).
 */

/** What the sender needs to know about a file before answering. */
export interface MediaFacts {
  size: number;
  /** Modification time (Last-Modified, ETag), when known. */
  mtime: Date | null;
  /** A strong ETag to send (else the sender derives one from size and mtime). */
  etag?: string | null;
}

/** The bytes of one range, chunk by chunk. */
export interface MediaBody {
  /** The next chunk, or null after the last byte of the range. Called again only after it resolved. */
  read(): Promise<Buffer | null>;
  /** The sender is done with a chunk (the socket took it): its memory may be used again. */
  release(chunk: Buffer): void;
  /** Stops reading and lets go of what the body holds. Idempotent; never throws. */
  close(): Promise<void>;
}

export interface MediaSource {
  readonly kind: 'local' | 'http';
  /** Size and times of the file; may ask the upstream (HEAD). */
  facts(signal: AbortSignal): Promise<MediaFacts>;
  /** The bytes of an inclusive range that lies inside the file. */
  open(range: ByteRange, signal: AbortSignal): Promise<MediaBody>;
  /** Releases the source (file descriptor). Idempotent; never throws. */
  close(): Promise<void>;
}

/** A source failure the sender maps to an answer: 404 when the file is gone, else 502. */
export class SourceError extends Error {
  constructor(
    readonly status: 404 | 502,
    readonly code: 'NOT_FOUND' | 'UPSTREAM_UNAVAILABLE',
    message: string,
    readonly reason: 'not-found' | 'changed' | 'upstream' | 'io',
  ) {
    super(message);
  }
}

const MiB = 1024 * 1024;
/**
 * Read (and socket write) size of local files. 1–4 MiB measured alike and well above 512 KiB
 * (docs/streaming.md); 1 MiB keeps a stream's memory at 3 MiB.
 */
export const LOCAL_CHUNK_BYTES = MiB;
/** Buffers per local stream: one being read, one being written, one spare. */
export const LOCAL_BUFFERS = 3;

// --- Local file -----------------------------------------------------------------------------------------

export interface ExpectedFile {
  size: number;
  /** The mtime the storage node reported (ISO string, Date or epoch milliseconds). */
  mtime: Date | string | number;
}

export type LocalOpenResult =
  | { ok: true; source: LocalFileSource }
  | {
      ok: false;
      reason: 'not-found' | 'not-a-file' | 'mismatch' | 'error';
      /** What fstat said, for 'mismatch'. */
      actual?: { size: number; mtime: Date };
      error?: unknown;
    };

function millisOf(value: Date | string | number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Date.parse(value);
  return value.getTime();
}

/**
 * Opens a file of this machine (a `locate` answer) and checks it with fstat: a regular file whose size and
 * mtime (milliseconds, as the storage node reports it) equal `expected`. On any other outcome the caller
 * streams over HTTP instead; nothing stays open then.
 */
export async function openLocalFile(
  filePath: string,
  expected: ExpectedFile | null,
  options: { chunkSize?: number; buffers?: number } = {},
): Promise<LocalOpenResult> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in under the name must not block a thread-pool thread forever.
    handle = await open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' || code === 'ENOTDIR' ? 'not-found' : 'error', error };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return { ok: false, reason: 'not-a-file' };
    }
    // Node's Stats.mtime (rounded to the millisecond), as the storage node dates the file: one ETag either way.
    const mtime = info.mtime;
    // Within a millisecond: the storage node's Date may be rounded (Node's Stats.mtime) where this truncates.
    if (expected && (info.size !== expected.size || Math.abs(info.mtimeMs - millisOf(expected.mtime)) >= 1)) {
      await handle.close();
      return { ok: false, reason: 'mismatch', actual: { size: info.size, mtime } };
    }
    return { ok: true, source: new LocalFileSource(handle, { size: info.size, mtime }, options) };
  } catch (error) {
    await handle.close().catch(() => undefined);
    return { ok: false, reason: 'error', error };
  }
}

/** An open local file. The sender closes it when the answer ends. */
export class LocalFileSource implements MediaSource {
  readonly kind = 'local';
  private closed: Promise<void> | null = null;
  private readonly bodies = new Set<LocalBody>();

  constructor(
    private readonly handle: FileHandle,
    private readonly info: MediaFacts,
    private readonly options: { chunkSize?: number; buffers?: number } = {},
  ) {}

  async facts(): Promise<MediaFacts> {
    return this.info;
  }

  async open(range: ByteRange, signal: AbortSignal): Promise<MediaBody> {
    if (this.closed) throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'the file is closed', 'io');
    const body = new LocalBody(
      this.handle,
      range,
      signal,
      this.options.chunkSize ?? LOCAL_CHUNK_BYTES,
      this.options.buffers ?? LOCAL_BUFFERS,
    );
    this.bodies.add(body);
    return body;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      await Promise.all([...this.bodies].map((body) => body.close()));
      // FileHandle.close waits for reads still running on the handle.
      await this.handle.close().catch(() => undefined);
    })();
    return this.closed;
  }
}

/** Reads a range with positional reads into a few reused buffers (no allocation per chunk). */
class LocalBody implements MediaBody {
  private position: number;
  private readonly free: Buffer[] = [];
  private readonly all: Buffer[] = [];
  private wakeUp: (() => void) | null = null;
  private pending: Promise<unknown> | null = null;
  private closed = false;

  constructor(
    private readonly handle: FileHandle,
    private readonly range: ByteRange,
    private readonly signal: AbortSignal,
    private readonly chunkSize: number,
    private readonly bufferCount: number,
  ) {
    this.position = range.start;
    // A read waiting for a buffer must not outlive the answer.
    signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  private wake(): void {
    const wake = this.wakeUp;
    this.wakeUp = null;
    wake?.();
  }

  private buffer(): Buffer | null {
    const free = this.free.pop();
    if (free) return free;
    if (this.all.length >= this.bufferCount) return null;
    // Outside the shared pool: a whole ArrayBuffer of its own, so release() can find it again.
    const created = Buffer.allocUnsafeSlow(Math.min(this.chunkSize, rangeLength(this.range)));
    this.all.push(created);
    return created;
  }

  async read(): Promise<Buffer | null> {
    if (this.closed || this.position > this.range.end) return null;
    let target = this.buffer();
    while (!target) {
      this.signal.throwIfAborted();
      await new Promise<void>((resolve) => (this.wakeUp = resolve));
      if (this.closed) return null;
      target = this.buffer();
    }
    if (this.signal.aborted) {
      this.free.push(target);
      this.signal.throwIfAborted();
    }
    const want = Math.min(target.length, this.range.end - this.position + 1);
    const reading = this.handle.read(target, 0, want, this.position);
    this.pending = reading;
    let bytesRead: number;
    try {
      ({ bytesRead } = await reading);
    } catch (error) {
      this.free.push(target);
      throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', `reading the file failed: ${String(error)}`, 'io');
    } finally {
      this.pending = null;
    }
    if (bytesRead === 0) {
      this.free.push(target);
      throw new SourceError(
        502,
        'UPSTREAM_UNAVAILABLE',
        'the file became shorter while it was sent',
        'changed',
      );
    }
    this.position += bytesRead;
    return bytesRead === target.length ? target : target.subarray(0, bytesRead);
  }

  release(chunk: Buffer): void {
    const owner = this.all.find((candidate) => candidate.buffer === chunk.buffer);
    if (!owner || this.free.includes(owner)) return;
    this.free.push(owner);
    this.wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    await this.pending?.catch(() => undefined);
  }
}

// --- Upstream HTTP (the storage node's internal file route) ----------------------------------------------

export interface UpstreamFileOptions {
  /** The storage node, e.g. http://127.0.0.1:18084. */
  baseUrl: string;
  mountId: string;
  /** Path inside the mount (as the media service stores it). */
  path: string;
  serviceToken: string;
  /** Size and mtime already known (a `locate` answer, the library): no HEAD is made then. */
  known?: { size: number; mtime?: Date | string | number | null; etag?: string | null };
  dispatcher?: Dispatcher;
  /** Time to the upstream's answer headers (default 30 s). */
  headersTimeoutMs?: number;
  /** Longest silence of the upstream while its body is read (default 300 s). */
  bodyTimeoutMs?: number;
  /** Bytes the body may buffer ahead of a slower client (default 1 MiB): big writes downstream. */
  highWaterMark?: number;
  /** The node's video cache in front of this source (docs/vfs-cache.md); absent = no cache (default). */
  cache?: SourceCache | null;
  /** What the library knows of the file, for the cache's decisions and its entry list. */
  cacheFacts?: CacheWrapFacts;
}

/** Library facts of a played file that the video cache uses (vfs/vfs-cache.ts WrapOptions). */
export interface CacheWrapFacts {
  /** Display name of the entry (the item's title); the file name when absent. */
  name?: string;
  durationSeconds?: number | null;
  bitrate?: number | null;
  /** Release date from the metadata provider (ISO date): the skip by release date. */
  releaseDate?: string | null;
  /** Viewers of the title in the last day: the force for popular content. */
  viewersLastDay?: number | null;
  /** Storage mount the file lives on: its multithread parameters (`driveThreads`). */
  driveId?: string | null;
  /** Library item and episode facts, for grouping entries (entry list). */
  itemId?: string;
  seriesName?: string | null;
  seasonNumber?: number | null;
  episodeNumber?: number | null;
}

/** What the play-agent's video cache offers a source (cache-runtime/node-cache-runtime.ts). */
export interface SourceCache {
  wrap(upstream: MediaSource, file: CacheWrapFacts & { sourceId: string; name: string }): MediaSource;
}

const STRONG_ETAG = /^"[\x21\x23-\x7e]{1,128}"$/;

function upstreamUrl(options: UpstreamFileOptions): string {
  const base = options.baseUrl.replace(/\/+$/, '');
  return `${base}/api/storage/internal/mounts/${encodeURIComponent(options.mountId)}/file?path=${encodeURIComponent(options.path)}`;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

function failure(status: number): SourceError {
  if (status === 404)
    return new SourceError(404, 'NOT_FOUND', 'the file is not on the storage node', 'not-found');
  return new SourceError(502, 'UPSTREAM_UNAVAILABLE', `the storage node answered ${status}`, 'upstream');
}

function unreachable(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof SourceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SourceError(
    502,
    'UPSTREAM_UNAVAILABLE',
    `the storage node did not answer: ${message}`,
    'upstream',
  );
}

/**
 * The storage node's internal file route as a source, behind the node's video cache when one is given
 * (the file is then known to the cache as `<mountId>:<path>`).
 */
export function upstreamFileSource(options: UpstreamFileOptions): MediaSource {
  const plain = storageFileSource(options);
  if (!options.cache) return plain;
  const name = options.path.split('/').filter(Boolean).at(-1) ?? options.path;
  return options.cache.wrap(plain, {
    name,
    ...options.cacheFacts,
    sourceId: `${options.mountId}:${options.path}`,
  });
}

/**
 * The storage node's internal file route. Only what the sender needs is taken from the upstream's answer
 * (length, range, mtime, a well-formed strong ETag); its other headers are not copied.
 */
function storageFileSource(options: UpstreamFileOptions): MediaSource {
  const url = upstreamUrl(options);
  const common = {
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 300_000,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  };
  const auth = { 'x-svc-service-token': options.serviceToken };
  let facts: MediaFacts | null = null;
  if (options.known) {
    const mtime =
      options.known.mtime === undefined || options.known.mtime === null
        ? null
        : millisOf(options.known.mtime);
    facts = {
      size: options.known.size,
      mtime: mtime === null || Number.isNaN(mtime) ? null : new Date(mtime),
      etag: options.known.etag ?? null,
    };
  }
  const bodies = new Set<MediaBody>();

  return {
    kind: 'http',

    async facts(signal) {
      if (facts) return facts;
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, { ...common, method: 'HEAD', headers: auth, signal });
      } catch (error) {
        throw unreachable(error, signal);
      }
      await response.body.dump().catch(() => undefined);
      if (response.statusCode !== 200) throw failure(response.statusCode);
      const length = single(response.headers['content-length']);
      if (length === undefined || !/^[0-9]{1,15}$/.test(length)) {
        throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'the storage node gave no length', 'upstream');
      }
      const modified = Date.parse(single(response.headers['last-modified']) ?? '');
      const etag = single(response.headers.etag);
      facts = {
        size: Number(length),
        mtime: Number.isNaN(modified) ? null : new Date(modified),
        etag: etag !== undefined && STRONG_ETAG.test(etag) ? etag : null,
      };
      return facts;
    },

    async open(range, signal) {
      const known = await this.facts(signal);
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          ...common,
          method: 'GET',
          // The size named lets the storage node read a far-away backend in one request (no stat first).
          headers: { ...auth, range: rangeHeader(range), [EXPECTED_SIZE_HEADER]: String(known.size) },
          signal,
          highWaterMark: options.highWaterMark ?? MiB,
        });
      } catch (error) {
        throw unreachable(error, signal);
      }
      const { statusCode, headers } = response;
      const length = single(headers['content-length']);
      let matches = false;
      if (statusCode === 206) {
        const answered = parseContentRange(single(headers['content-range']));
        matches =
          answered !== null &&
          answered.start === range.start &&
          answered.end === range.end &&
          answered.size === known.size;
      } else if (statusCode === 200) {
        matches = range.start === 0 && range.end === known.size - 1 && length === String(known.size);
      }
      if (length !== undefined && length !== String(rangeLength(range))) matches = false;
      if (!matches) {
        // Destroying an unread body emits an AbortError: without a listener it would end the process.
        response.body.on('error', () => undefined).destroy();
        if (statusCode === 200 || statusCode === 206 || statusCode === 412) {
          throw new SourceError(
            502,
            'UPSTREAM_UNAVAILABLE',
            'the file changed on the storage node',
            'changed',
          );
        }
        throw failure(statusCode);
      }
      const body = new UpstreamBody(response.body, rangeLength(range), signal);
      bodies.add(body);
      return body;
    },

    async close() {
      await Promise.all([...bodies].map((body) => body.close()));
    },
  };
}

/** An upstream body read with read() so that everything buffered goes out in one big write. */
export class UpstreamBody implements MediaBody {
  private received = 0;
  private closed = false;

  constructor(
    private readonly stream: Readable,
    private readonly expected: number,
    private readonly signal: AbortSignal,
  ) {
    // Errors are taken from read(); an unhandled 'error' must not crash the process.
    stream.on('error', () => undefined);
  }

  async read(): Promise<Buffer | null> {
    for (;;) {
      if (this.closed) return null;
      this.signal.throwIfAborted();
      const chunk = this.stream.read() as Buffer | null;
      if (chunk !== null) {
        this.received += chunk.length;
        if (this.received > this.expected) {
          throw new SourceError(
            502,
            'UPSTREAM_UNAVAILABLE',
            'the storage node sent too many bytes',
            'upstream',
          );
        }
        return chunk;
      }
      if (this.stream.readableEnded) {
        if (this.received < this.expected) {
          throw new SourceError(
            502,
            'UPSTREAM_UNAVAILABLE',
            'the storage node sent too few bytes',
            'upstream',
          );
        }
        return null;
      }
      if (this.stream.destroyed) {
        throw unreachable(this.stream.errored ?? new Error('the upstream body ended early'), this.signal);
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('readable', done);
          this.stream.off('end', done);
          this.stream.off('close', done);
          this.signal.removeEventListener('abort', done);
          resolve();
        };
        this.stream.on('readable', done);
        this.stream.on('end', done);
        this.stream.on('close', done);
        this.signal.addEventListener('abort', done);
      });
    }
  }

  release(): void {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Destroying the body closes the upstream connection unless it was read to its end.
    if (!this.stream.readableEnded) this.stream.destroy();
  }
}
