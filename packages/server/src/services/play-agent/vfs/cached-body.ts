import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import { SourceError, type MediaBody, type MediaSource } from '../stream/sources.js';
import type { CacheEntry } from './cache-entry.js';
import { FILL_WAIT_BYTES, type EntryFills } from './entry-fills.js';
import type { CacheStore } from './cache-store.js';
import { intersect, missing, rangeBytes, type RangeSet } from './range-set.js';
import type { Reservation } from './space-ledger.js';

/**
 * The bytes of one range stitched from the cache entry's verified ranges and the upstream source, in
 * order, as one continuous body. Upstream bytes that the write policy allows are also written into the
 * entry (through a space reservation); writing never fails the read: a full disk, a refused reservation or
 * a write error only stop the writing.
 */

export interface CachedBodyOptions {
  /** Size of a local read (default 1 MiB). */
  chunkBytes: number;
  /** Written bytes between two flushes (sync + record); default 1 MiB. */
  flushBytes: number;
  /** Bytes reserved at a time while writing (default 4 MiB). */
  reserveBytes: number;
  /**
   * Bytes of this body still waiting for the disk; beyond it upstream bytes are not written (the client
   * never waits for the cache disk, and memory stays bounded under a slow one).
   */
  maxQueuedBytes: number;
  /** The bytes of the file this entry may hold (the mode's plan); evaluated at each upstream run. */
  writable: () => RangeSet;
  /**
   * Longest upstream run (READ_AHEAD: runs are announced as fills, so a read-ahead fetches the bytes
   * after them and another reader waits for them instead of fetching them twice). Default: unbounded.
   */
  maxRunBytes?: number;
  /**
   * SMART_STARTUP: the first upstream run of a body asks for `firstBytes`, each next one for twice the
   * last, up to `maxBytes`. A reader that leaves early (the probe tool moving to the index, a player
   * seeking) then strands at most what one short run left in the buffers of the link, instead of
   * everything the link delivered while the reader was not reading. Default: one run to the end.
   */
  growingRuns?: { firstBytes: number; maxBytes: number };
  /** Told the position after each chunk (the read-ahead loop follows it). */
  onProgress?: (position: number) => void;
  /**
   * SMART_STARTUP: an upstream run of plan bytes asks for the rest of its plan range at once (no
   * growing runs), and when the reader leaves before the run's end, the run is finished into the entry
   * in the background (`settled`) instead of being dropped: the bytes the link already carried are kept,
   * and the startup job need not fetch them again. Runs outside the plan still grow and are dropped.
   */
  finishPlanRuns?: boolean;
}

export const DEFAULT_BODY_OPTIONS = {
  chunkBytes: 1024 * 1024,
  flushBytes: 1024 * 1024,
  reserveBytes: 4 * 1024 * 1024,
  maxQueuedBytes: 8 * 1024 * 1024,
};

type Current =
  | { kind: 'local'; end: number }
  | {
      kind: 'upstream';
      end: number;
      body: MediaBody;
      writable: RangeSet;
      /** This run, announced (READ_AHEAD) so that others wait for it. */
      fill: AnnouncedRun | null;
      /** This run of plan bytes, claimed (SMART_STARTUP) so that fills skip it. */
      claim: { finish: () => void } | null;
    };

type UpstreamRun = Extract<Current, { kind: 'upstream' }>;

type AnnouncedRun = ReturnType<EntryFills['begin']>;

export class CachedBody implements MediaBody {
  private position: number;
  private current: Current | null = null;
  private closed = false;
  private reservation: Reservation | null = null;
  /** This body stopped writing (no room, or the entry refused). */
  private noWrite = false;
  /** The entry's data could not be read: everything else of this body comes from upstream. */
  private localBroken = false;
  private unflushed = 0;
  /** Upstream runs this body opened (growing runs). */
  private upstreamRuns = 0;
  private queuedBytes = 0;
  private readonly queued = new Set<Promise<unknown>>();
  /** This body's writes, one after the other, off the read path (reserve, write, flush). */
  private writing: Promise<void> = Promise.resolve();
  /** Upstream bytes not written because the disk was behind by `maxQueuedBytes` (tests, accounting). */
  skippedBytes = 0;
  /** Upstream bytes this body fetched (tests, accounting). */
  upstreamBytes = 0;
  localBytes = 0;
  /**
   * Aborts this body's upstream runs: with the client (its signal), or when a run left to finish ends.
   * Runs do not take the client's signal directly, so that a run of plan bytes can outlive the client.
   */
  private readonly runs = new AbortController();
  /** The chunk read of the current run that the client stopped waiting for (the finisher takes it). */
  private pendingChunk: Promise<Buffer | null> | null = null;
  /** A run the reader left, being finished into the entry (finishPlanRuns). */
  private finishing: UpstreamRun | null = null;
  /** Resolves once a run the reader left is finished and recorded (at close when there is none). */
  settled: Promise<void> = Promise.resolve();

  /** A run this body's reader left is being finished (close() returned before it ends). */
  get finishingRun(): boolean {
    return this.finishing !== null;
  }

  constructor(
    private readonly entry: CacheEntry,
    private readonly store: CacheStore,
    private readonly upstream: MediaSource,
    private readonly range: ByteRange,
    private readonly signal: AbortSignal,
    private readonly options: CachedBodyOptions,
  ) {
    this.position = range.start;
    // The client left: its runs end with it, except a run of plan bytes that close() will finish.
    const forward = () => {
      const current = this.current;
      const planRun = current?.kind === 'upstream' && current.writable.length > 0;
      if (!(this.options.finishPlanRuns && planRun)) this.runs.abort(signal.reason);
    };
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
  }

  async read(): Promise<Buffer | null> {
    for (;;) {
      if (this.closed || this.position > this.range.end) return null;
      this.signal.throwIfAborted();
      if (this.current === null) {
        const next = await this.next();
        // Closed while the upstream run was opening: close() could not see it, so drop it here.
        if (this.closed) {
          await dropRun(next);
          return null;
        }
        if (next === null) continue;
        this.current = next;
      }
      const current = this.current;
      if (current.kind === 'local') {
        const chunk = await this.readLocal(current.end);
        if (chunk) {
          this.options.onProgress?.(this.position);
          return chunk;
        }
        continue;
      }
      const pending = current.body.read();
      this.pendingChunk = pending;
      // The client may leave while the run waits for the link: answer it at once, the run goes on.
      const chunk = await abortableRead(pending, this.signal);
      this.pendingChunk = null;
      // Closed meanwhile: close() ended the run (nothing more is written) or finishes it (it has the chunk).
      if (this.closed) {
        if (chunk && this.finishing !== current) current.body.release(chunk);
        return null;
      }
      if (chunk === null) {
        // Sources end a range only after its last byte; anything else would loop here.
        if (this.position <= current.end) {
          throw new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'the source ended a range early', 'upstream');
        }
        await this.endUpstream();
        continue;
      }
      const at = this.position;
      this.position += chunk.length;
      this.upstreamBytes += chunk.length;
      if (current.fill) current.fill.progress = this.position;
      this.store_(at, chunk, current.writable);
      if (this.position > current.end) await this.endUpstream();
      this.options.onProgress?.(this.position);
      return chunk;
    }
  }

  /**
   * Decides where the bytes at `position` come from: the entry's verified ranges, else upstream. Null
   * after waiting for a fill that was fetching them (the caller decides again).
   */
  private async next(): Promise<Current | null> {
    const recorded = this.localBroken ? [] : this.entry.recorded;
    const rest = { start: this.position, end: this.range.end };
    const local = intersect(recorded, rest)[0];
    if (local && local.start === this.position) return { kind: 'local', end: local.end };
    const run = { ...(missing(recorded, rest)[0] ?? rest) };
    if (!this.localBroken && !this.entry.passThrough) {
      const fill = this.entry.fills.at(this.position);
      if (fill) {
        if (!fill.cuttable || this.position - fill.progress <= FILL_WAIT_BYTES) {
          // The bytes arrive soon: wait for the next record (or the end of the fill) and look again.
          await abortable(Promise.race([fill.done, this.entry.fills.progressed()]), this.signal);
          return null;
        }
        fill.cut(this.position - 1);
      }
      // Stop before bytes someone is already fetching: they will be local by then.
      const ahead = this.entry.fills.nextStart(run);
      if (ahead !== null) run.end = ahead - 1;
    }
    // A run is all plan bytes or none: the end of a plan range ends a run, and so does the start of one.
    const plan = this.noWrite || this.entry.passThrough ? [] : this.options.writable();
    const inPlan = plan.find((range) => range.start <= run.start && run.start <= range.end);
    const nextPlan = plan.find((range) => range.start > run.start);
    if (inPlan) run.end = Math.min(run.end, inPlan.end);
    else if (nextPlan) run.end = Math.min(run.end, nextPlan.start - 1);
    const limit = this.runLimit(inPlan !== undefined, this.entry.fills.claimedAt(run.start));
    if (limit !== null) run.end = Math.min(run.end, run.start + limit - 1);
    const writable = inPlan ? [{ ...run }] : [];
    const fill =
      this.options.maxRunBytes !== undefined && writable.length > 0
        ? this.entry.fills.begin(run, false)
        : null;
    const claim = !fill && writable.length > 0 ? this.entry.fills.claim(run) : null;
    try {
      this.upstreamRuns++;
      const body = await this.upstream.open(run, this.runs.signal);
      return { kind: 'upstream', end: run.end, body, writable, fill, claim };
    } catch (error) {
      fill?.finish();
      claim?.finish();
      throw error;
    }
  }

  /**
   * Bytes the next upstream run may ask for (null: up to the end of the missing run). Plan runs are
   * asked whole, except where another reader's run is fetching the same bytes (it may be leaving: its
   * run then becomes a fill this reader waits for): a short first run bounds what both fetch.
   */
  private runLimit(planBytes: boolean, claimedByAnother: boolean): number | null {
    const { maxRunBytes, growingRuns, finishPlanRuns } = this.options;
    const whole = planBytes && finishPlanRuns && !claimedByAnother;
    const growing =
      growingRuns && !whole
        ? Math.min(growingRuns.maxBytes, growingRuns.firstBytes * 2 ** Math.min(this.upstreamRuns, 30))
        : Infinity;
    const limit = Math.min(maxRunBytes ?? Infinity, growing);
    return Number.isFinite(limit) ? limit : null;
  }

  private async readLocal(end: number): Promise<Buffer | null> {
    const length = Math.min(this.options.chunkBytes, end - this.position + 1);
    const target = Buffer.allocUnsafe(length);
    let got = 0;
    try {
      got = await this.entry.read(target, length, this.position);
    } catch {
      got = 0;
    }
    if (got <= 0) {
      // A recorded range that cannot be read (entry closed under us): fetch it from upstream instead.
      this.current = null;
      this.localBroken = true;
      this.noWrite = true;
      return null;
    }
    this.position += got;
    this.localBytes += got;
    if (this.position > end) this.current = null;
    return got === length ? target : target.subarray(0, got);
  }

  private async endUpstream(): Promise<void> {
    const current = this.current;
    this.current = null;
    if (current?.kind !== 'upstream') return;
    await current.body.close();
    const { fill, claim } = current;
    // Fills skip the claimed bytes until they are written (then they count as written).
    if (claim) this.track(Promise.all([...this.queued]).finally(() => claim.finish()));
    if (fill) {
      // Readers waiting for this run look again once its bytes are recorded; this body goes on at once.
      const written = [...this.queued];
      this.track(
        Promise.all(written)
          .then(() => this.entry.flush())
          .catch(() => undefined)
          .finally(() => fill.finish()),
      );
    }
  }

  /**
   * Queues the allowed part of an upstream chunk for writing at its offset and returns at once: the
   * reservation, the write and the flush run behind the read, in order. A disk more than `maxQueuedBytes`
   * behind loses the bytes instead of holding the client (the entry just misses them).
   */
  private store_(at: number, chunk: Buffer, writable: RangeSet): void {
    if ((this.closed && !this.finishing) || this.noWrite || writable.length === 0) return;
    for (const part of intersect(writable, { start: at, end: at + chunk.length - 1 })) {
      const length = rangeBytes(part);
      if (this.queuedBytes + length > this.options.maxQueuedBytes) {
        this.skippedBytes += length;
        continue;
      }
      // A copy: the upstream may reuse the chunk's memory once it is released.
      const bytes = Buffer.from(chunk.subarray(part.start - at, part.end - at + 1));
      this.queuedBytes += length;
      this.writing = this.writing
        .then(() => this.writePart(part.start, bytes))
        .catch(() => undefined)
        .finally(() => (this.queuedBytes -= length));
      this.track(this.writing);
    }
  }

  private async writePart(position: number, bytes: Buffer): Promise<void> {
    const length = bytes.length;
    if (this.noWrite || !(await this.reserve(length))) return;
    this.reservation?.consume(length);
    if (!(await this.entry.write(position, bytes))) {
      // Reserved and consumed, but not on disk: give the bytes back.
      this.store.ledger.forget(length);
      this.noWrite = true;
      return;
    }
    this.store.noteWritten(this.entry, length);
    // The flush joins the entry's queue right behind the writes it covers: a disk that fills up later
    // must not take the recording of bytes already written with it.
    this.unflushed += length;
    if (this.unflushed >= this.options.flushBytes) {
      this.unflushed = 0;
      await this.entry.flush();
    }
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => undefined).finally(() => this.queued.delete(tracked));
    this.queued.add(tracked);
  }

  private async reserve(bytes: number): Promise<boolean> {
    if (this.reservation && this.reservation.remaining >= bytes) return true;
    this.reservation?.release();
    // close() waits for every queued write before it releases the reservation, so one taken here is
    // released there.
    this.reservation = await this.store.reserve(Math.max(bytes, this.options.reserveBytes));
    if (!this.reservation) this.reservation = await this.store.reserve(bytes);
    if (!this.reservation) this.noWrite = true;
    return this.reservation !== null;
  }

  release(chunk: Buffer): void {
    if (this.current?.kind === 'upstream') this.current.body.release(chunk);
  }

  /**
   * Stops reading; waits for queued writes and records them (they were complete). A run of plan bytes
   * the reader left (finishPlanRuns) is finished in the background instead: `settled` resolves after it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const current = this.current;
    if (
      this.options.finishPlanRuns &&
      current?.kind === 'upstream' &&
      current.writable.length > 0 &&
      !this.noWrite &&
      !this.entry.passThrough
    ) {
      this.current = null;
      this.finishing = current;
      this.settled = this.finishRun(current).finally(() => this.done());
      return;
    }
    await this.endUpstream().catch(() => undefined);
    this.runs.abort(new Error('the reader closed'));
    await this.done();
  }

  private async done(): Promise<void> {
    await Promise.all([...this.queued]);
    await this.entry.flush().catch(() => undefined);
    this.reservation?.release();
    this.reservation = null;
  }

  /**
   * The rest of a run of plan bytes after its reader left, read as fast as the link gives it and written
   * into the entry. It is announced as a fill from the run's start, its progress where the reader
   * stopped: a reader needing these bytes — also those the reader had read, still on their way to disk —
   * waits for them (or, far ahead, cuts it short) and the startup job skips them.
   */
  private async finishRun(run: UpstreamRun): Promise<void> {
    const fill = this.entry.fills.begin(
      { start: run.writable[0]?.start ?? this.position, end: run.end },
      true,
    );
    fill.progress = this.position;
    const { claim } = run;
    // The bytes before the reader's position stay claimed until their queued writes are done.
    if (claim) this.track(Promise.all([...this.queued]).finally(() => claim.finish()));
    let position = this.position;
    let next = this.pendingChunk;
    this.pendingChunk = null;
    try {
      while (position <= fill.range.end && !this.noWrite && !this.entry.passThrough && !this.entry.closed) {
        const chunk = await (next ?? run.body.read());
        next = null;
        if (chunk === null) break;
        const length = Math.min(chunk.length, fill.range.end - position + 1);
        this.store_(position, chunk.subarray(0, length), run.writable);
        run.body.release(chunk);
        position += length;
        this.upstreamBytes += length;
        fill.progress = position;
        // Nobody waits for these bytes but the disk: keep pace with it instead of dropping any.
        if (this.queuedBytes >= this.options.maxQueuedBytes / 2) await this.writing;
      }
    } catch {
      // The link failed: what was written is recorded below; the startup job fetches the rest.
    } finally {
      this.runs.abort(new Error('the run left by its reader ended'));
      await run.body.close().catch(() => undefined);
      await Promise.all([...this.queued]);
      await this.entry.flush().catch(() => undefined);
      this.finishing = null;
      fill.finish();
    }
  }
}

/** A read of the current run, or a rejection as soon as the client leaves (the read itself goes on). */
function abortableRead(read: Promise<Buffer | null>, signal: AbortSignal): Promise<Buffer | null> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    read.then(
      (chunk) => {
        signal.removeEventListener('abort', onAbort);
        resolve(chunk);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Ends an upstream run that was opened for a body already closed. */
async function dropRun(run: Current | null): Promise<void> {
  if (run?.kind !== 'upstream') return;
  await run.body.close().catch(() => undefined);
  run.fill?.finish();
}

/** Waits for `promise`, or rejects when `signal` aborts first. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
