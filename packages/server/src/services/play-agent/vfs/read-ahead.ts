import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import { missing, type RangeSet } from './range-set.js';
import type { DiskPressure } from './disk-pressure.js';

/**
 * READ_AHEAD planning (docs/vfs-cache.md, "READ_AHEAD"): each playback stream keeps a window of bytes ahead
 * of its position in the cache; a window of 0 means the whole file is downloaded in the background
 * instead. Background downloads share a node-wide concurrency cap and wait while the disk is under
 * pressure.
 */

/** The bytes to fetch ahead of a stream at `position` that the cache does not hold yet. */
export function readAheadRanges(
  position: number,
  windowBytes: number,
  size: number,
  recorded: RangeSet,
): ByteRange[] {
  if (size <= 0 || position >= size) return [];
  const end = windowBytes === 0 ? size - 1 : Math.min(size - 1, position + windowBytes - 1);
  return missing(recorded, { start: Math.max(0, position), end });
}

export interface DownloadContext {
  signal: AbortSignal;
  /** Resolves when the download may go on (disk pressure gone); rejects when it is cancelled. */
  whilePaused: () => Promise<void>;
}

export type DownloadJob = (context: DownloadContext) => Promise<void>;

interface Queued {
  key: string;
  job: DownloadJob;
  controller: AbortController;
  /** Told when the job is dropped before it ran (cancel, stop). */
  dropped: (() => void) | undefined;
}

/**
 * Whole-file background downloads, one per entry key, at most `concurrency` at once (−1 = unlimited).
 * A queued download starts when a slot is free and the disk is not under pressure; a running one calls
 * `whilePaused()` between its chunks.
 */
export class BackgroundDownloads {
  private readonly waiting: Queued[] = [];
  private readonly running = new Map<string, Queued>();
  private readonly runs = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The latest failures of jobs (reported, never thrown; the oldest are dropped past 50). */
  readonly failures: { key: string; error: unknown }[] = [];

  constructor(
    private concurrency: number,
    private readonly pressure: DiskPressure,
    private readonly pollMs = 1000,
  ) {}

  setConcurrency(concurrency: number): void {
    this.concurrency = concurrency;
    this.pump();
  }

  get runningCount(): number {
    return this.running.size;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Queues a download; false when the same key is already queued or running. */
  enqueue(key: string, job: DownloadJob, dropped?: () => void): boolean {
    if (this.stopped || this.running.has(key) || this.waiting.some((item) => item.key === key)) return false;
    this.waiting.push({ key, job, controller: new AbortController(), dropped });
    this.pump();
    return true;
  }

  cancel(key: string): void {
    const index = this.waiting.findIndex((item) => item.key === key);
    if (index >= 0) this.waiting.splice(index, 1)[0]?.dropped?.();
    this.running.get(key)?.controller.abort(new Error('download cancelled'));
  }

  private slots(): number {
    return this.concurrency === -1 ? Number.POSITIVE_INFINITY : this.concurrency;
  }

  private pump(): void {
    if (this.stopped) return;
    while (this.waiting.length > 0 && this.running.size < this.slots()) {
      if (this.pressure.paused) {
        this.poll();
        return;
      }
      const next = this.waiting.shift()!;
      this.running.set(next.key, next);
      const run = this.run(next).finally(() => this.runs.delete(run));
      this.runs.add(run);
    }
  }

  private poll(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, this.pollMs);
    this.timer.unref();
  }

  private async run(item: Queued): Promise<void> {
    const { signal } = item.controller;
    const whilePaused = async (): Promise<void> => {
      while (this.pressure.paused) {
        signal.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, this.pollMs).unref());
      }
      signal.throwIfAborted();
    };
    try {
      await item.job({ signal, whilePaused });
    } catch (error) {
      if (!signal.aborted) this.failures.push({ key: item.key, error });
      if (this.failures.length > 50) this.failures.splice(0, this.failures.length - 50);
    } finally {
      this.running.delete(item.key);
      this.pump();
    }
  }

  /** Resolves when the jobs running now have ended (after `stop()`: when everything has). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs]);
  }

  /** Cancels everything and waits for nothing more to start. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const item of this.waiting.splice(0)) item.dropped?.();
    for (const item of this.running.values()) item.controller.abort(new Error('downloads stopped'));
  }
}
