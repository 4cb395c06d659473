/**
 * Output bandwidth limiting (spec, "Playback endpoint behaviour" 7 and "Limits"): a token bucket with a
 * rate in bytes per second (0 = unlimited) and a burst of about 20 ms of the rate, clamped to 4 KiB–4 MiB
 * (at 10 Mbps that is 25 kB, at 1 Gbps 2.5 MB). A configuration update resets the remainder: the bucket
 * starts full again at the new rate and earlier credit or debt is forgotten.
 *
 * `take(n)` waits exactly as long as the missing tokens need at the rate, with one timer for the whole
 * bucket (never a polling loop); waiters are served first come, first served. A request larger than the
 * burst is granted once the bucket is full and leaves it in debt, so the average rate stays exact; the
 * media sender slices its writes to the burst, so on the wire bursts stay within it.
 *
 * Late timers: on a starved machine the timer of a waiting stream fires late, and capping the refill at
 * the burst would throw away the credit of the lateness (100 limited streams ran 40–75 % slow under load).
 * While a stream waits in the queue its credit therefore grows past the burst by up to a catch-up reserve
 * (one second of the rate, never more than the burst ceiling of 4 MiB), which the following takes spend at
 * once. Credit gathered while nobody waits stays capped at the burst, and a reserve left unspent by a
 * stream that went quiet for longer than a second is dropped, so a resumed stream starts with the plain burst.
 */

/** Time source of the bucket; tests inject a manual one. */
export interface BucketClock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: BucketClock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const MIN_BURST_BYTES = 4 * 1024;
export const MAX_BURST_BYTES = 4 * 1024 * 1024;
export const BURST_SECONDS = 0.02;
/** Catch-up reserve of a waiting stream, in seconds of its rate (bounded by {@link MAX_BURST_BYTES}). */
export const CATCH_UP_SECONDS = 1;
/** A stream quiet for longer than this loses its unspent catch-up reserve. */
export const CATCH_UP_IDLE_MS = 1000;

/** Bytes per second of a rate in megabits per second (10 Mbps = 1,250,000 B/s). */
export function mbpsToBytes(mbps: number): number {
  return Math.round((mbps * 1_000_000) / 8);
}

/** The catch-up reserve of a rate: one second of it, at most 4 MiB; 0 when unlimited. */
export function catchUpReserveFor(bytesPerSecond: number): number {
  checkRate(bytesPerSecond);
  if (bytesPerSecond === 0) return 0;
  return Math.min(MAX_BURST_BYTES, Math.round(bytesPerSecond * CATCH_UP_SECONDS));
}

/** The burst of a rate: about 20 ms of it, clamped to 4 KiB–4 MiB; Infinity when unlimited (0). */
export function burstFor(bytesPerSecond: number): number {
  checkRate(bytesPerSecond);
  if (bytesPerSecond === 0) return Infinity;
  return Math.min(MAX_BURST_BYTES, Math.max(MIN_BURST_BYTES, Math.round(bytesPerSecond * BURST_SECONDS)));
}

function checkRate(rate: number): void {
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`invalid rate ${rate}`);
}

interface Waiter {
  bytes: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
}

export class TokenBucket {
  private rateValue = 0;
  private burstValue = Infinity;
  private reserveValue = 0;
  private tokens = 0;
  private updatedAt = 0;
  private readonly queue: Waiter[] = [];
  private timer: unknown = null;
  /**
   * Waiters per abort signal, with one listener per signal: a stream waits dozens of times a second, and
   * adding and removing an EventTarget listener for each wait cost more CPU than the wait itself.
   */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Waiter>>();

  constructor(
    bytesPerSecond: number,
    private readonly clock: BucketClock = systemClock,
  ) {
    this.reconfigure(bytesPerSecond);
  }

  /** Bytes per second; 0 = unlimited. */
  get rate(): number {
    return this.rateValue;
  }

  /** Largest burst in bytes (Infinity when unlimited). */
  get burst(): number {
    return this.burstValue;
  }

  get unlimited(): boolean {
    return this.rateValue === 0;
  }

  /** Tokens available now (negative while in debt); Infinity when unlimited. */
  get available(): number {
    if (this.unlimited) return Infinity;
    this.refill();
    return this.tokens;
  }

  /** Waiters not yet served. */
  get waiting(): number {
    return this.queue.length;
  }

  /** A new rate: the bucket starts full at it (the remainder is reset); waiters are re-timed. */
  reconfigure(bytesPerSecond: number): void {
    checkRate(bytesPerSecond);
    this.rateValue = bytesPerSecond;
    this.burstValue = burstFor(bytesPerSecond);
    this.reserveValue = catchUpReserveFor(bytesPerSecond);
    this.tokens = this.unlimited ? 0 : this.burstValue;
    this.updatedAt = this.clock.now();
    this.pump();
  }

  /** Takes `bytes` tokens at once when they are there and nobody waits; false otherwise. */
  tryTake(bytes: number): boolean {
    checkBytes(bytes);
    if (this.unlimited || bytes === 0) return true;
    if (this.queue.length > 0) return false;
    this.refill();
    if (this.tokens < Math.min(bytes, this.burstValue)) return false;
    this.tokens -= bytes;
    return true;
  }

  /**
   * Takes up to `maxBytes` of the tokens there are now (none while others wait) and answers how many: credit
   * a late timer left behind goes out with the write it follows instead of in writes of its own.
   */
  takeAvailable(maxBytes: number): number {
    checkBytes(maxBytes);
    if (this.unlimited) return maxBytes;
    if (this.queue.length > 0 || maxBytes === 0) return 0;
    this.refill();
    const granted = Math.min(maxBytes, Math.floor(this.tokens));
    if (granted <= 0) return 0;
    this.tokens -= granted;
    return granted;
  }

  /**
   * Resolves once `bytes` may be sent. Rejects with the signal's reason when it is aborted first (the
   * tokens are then not taken).
   */
  take(bytes: number, signal?: AbortSignal): Promise<void> {
    checkBytes(bytes);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.tryTake(bytes)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { bytes, resolve, reject, signal };
      if (signal) this.watch(signal).add(waiter);
      this.queue.push(waiter);
      if (this.queue.length === 1) this.pump();
    });
  }

  /** The waiters of a signal, with its one abort listener (added on the signal's first wait). */
  private watch(signal: AbortSignal): Set<Waiter> {
    let waiters = this.bySignal.get(signal);
    if (!waiters) {
      const set = new Set<Waiter>();
      waiters = set;
      this.bySignal.set(signal, set);
      signal.addEventListener('abort', () => this.abandon(set, signal.reason), { once: true });
    }
    return waiters;
  }

  /** The waiters of an aborted signal leave the queue without taking tokens. */
  private abandon(waiters: Set<Waiter>, reason: unknown): void {
    let headLeft = false;
    for (const waiter of waiters) {
      const index = this.queue.indexOf(waiter);
      if (index < 0) continue;
      this.queue.splice(index, 1);
      if (index === 0) headLeft = true;
      waiter.reject(reason);
    }
    waiters.clear();
    if (headLeft) this.pump();
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.updatedAt);
    this.updatedAt = now;
    if (this.unlimited) return;
    const waiting = this.queue.length > 0;
    if (!waiting && elapsed > CATCH_UP_IDLE_MS) this.tokens = Math.min(this.tokens, this.burstValue);
    // Time spent waiting is owed to the waiter even when its timer fired late; idle time is not.
    const ceiling = waiting ? this.burstValue + this.reserveValue : this.burstValue;
    if (this.tokens < ceiling)
      this.tokens = Math.min(ceiling, this.tokens + (elapsed * this.rateValue) / 1000);
  }

  /** Serves the waiters that can go now and sets the one timer for the next. */
  private pump(): void {
    if (this.timer !== null) {
      this.clock.clearTimer(this.timer);
      this.timer = null;
    }
    this.refill();
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (!this.unlimited) {
        const needed = Math.min(head.bytes, this.burstValue);
        if (this.tokens < needed) {
          const waitMs = ((needed - this.tokens) * 1000) / this.rateValue;
          this.timer = this.clock.setTimer(
            () => {
              this.timer = null;
              this.pump();
            },
            Math.max(1, Math.ceil(waitMs)),
          );
          return;
        }
        this.tokens -= head.bytes;
      }
      this.queue.shift();
      if (head.signal) this.bySignal.get(head.signal)?.delete(head);
      head.resolve();
    }
  }
}

function checkBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`invalid byte count ${bytes}`);
}
