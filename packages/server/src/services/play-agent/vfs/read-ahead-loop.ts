import type { MediaSource } from '../stream/sources.js';
import type { CacheEntry } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';
import type { DiskPressure } from './disk-pressure.js';
import { fillRanges } from './range-fill.js';
import { readAheadRanges } from './read-ahead.js';
import { truncateTo } from './range-set.js';

/**
 * READ_AHEAD's per-stream loop (docs/vfs-cache.md, "READ_AHEAD"): while a stream reads at position P,
 * the missing bytes of [P, P + window) are fetched into the entry, one round of `threads` chunks at a
 * time so that a moved position is followed at once. Bytes a reader is fetching itself (its announced
 * upstream run) are skipped. The loop waits while the disk is under pressure, stops for a while when
 * the cache has no room or the entry went pass-through, and ends for good with `stop()`.
 */

export interface ReadAheadLoopOptions {
  windowBytes: number;
  threads: number;
  chunkBytes: number;
  pressure: DiskPressure;
  /** How often a paused loop looks at the disk again, and how long it rests after a refusal. */
  pollMs?: number;
}

export class ReadAheadLoop {
  private position = 0;
  private running: Promise<void> | null = null;
  private readonly controller = new AbortController();
  private restUntil = 0;
  /** Upstream bytes the loop fetched (tests, accounting). */
  fetchedBytes = 0;

  constructor(
    private readonly entry: CacheEntry,
    private readonly store: CacheStore,
    private readonly upstream: MediaSource,
    private readonly options: ReadAheadLoopOptions,
  ) {}

  /** The stream reached `position`: keep the window ahead of it filled. */
  follow(position: number): void {
    this.position = position;
    if (this.running || this.controller.signal.aborted || Date.now() < this.restUntil) return;
    this.running = this.run()
      .catch(() => undefined)
      .finally(() => (this.running = null));
  }

  get active(): boolean {
    return this.running !== null;
  }

  private async run(): Promise<void> {
    const { signal } = this.controller;
    const pollMs = this.options.pollMs ?? 1000;
    for (;;) {
      if (signal.aborted || this.entry.passThrough || this.entry.closed) return;
      if (this.options.pressure.paused) {
        await sleep(pollMs, signal);
        continue;
      }
      const size = this.entry.meta.size;
      const wanted = readAheadRanges(this.position, this.options.windowBytes, size, this.entry.claimed);
      if (wanted.length === 0) return;
      const round = truncateTo(wanted, this.options.chunkBytes * Math.max(1, this.options.threads));
      const result = await fillRanges(this.entry, this.store, this.upstream, round, {
        signal,
        threads: this.options.threads,
        chunkBytes: this.options.chunkBytes,
      });
      this.fetchedBytes += result.fetchedBytes;
      if (!result.complete) {
        this.restUntil = Date.now() + pollMs;
        return;
      }
    }
  }

  /** Cancels the fetches under way and waits for them to end. */
  async stop(): Promise<void> {
    this.controller.abort(new Error('read-ahead stopped'));
    await this.running;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
