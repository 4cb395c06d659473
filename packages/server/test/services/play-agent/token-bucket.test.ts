import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  MAX_BURST_BYTES,
  MIN_BURST_BYTES,
  TokenBucket,
  burstFor,
  catchUpReserveFor,
  mbpsToBytes,
  type BucketClock,
} from '../../../src/services/play-agent/stream/token-bucket.js';

/** A clock that moves only when told; timers fire in order as time passes. */
class ManualClock implements BucketClock {
  time = 0;
  timersSet = 0;
  /** Every timer fires this much later than asked, as on a starved machine. */
  lateBy = 0;
  private timers: { at: number; callback: () => void; id: number }[] = [];
  private nextId = 1;

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): unknown {
    this.timersSet++;
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms + this.lateBy, callback, id });
    return id;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward, firing due timers (and letting resolved promises run). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.timers.shift();
      this.time = due.at;
      due.callback();
      await flush();
    }
    this.time = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** Resolves to true once the promise settled (checked after the microtasks ran). */
function tracked(promise: Promise<void>) {
  const state = { done: false, error: undefined as unknown };
  promise.then(
    () => (state.done = true),
    (error: unknown) => {
      state.done = true;
      state.error = error;
    },
  );
  return state;
}

describe('token bucket', () => {
  it('sizes the burst as 20 ms of the rate, clamped to 4 KiB–4 MiB', () => {
    expect(mbpsToBytes(10)).toBe(1_250_000);
    expect(burstFor(mbpsToBytes(10))).toBe(25_000);
    expect(burstFor(mbpsToBytes(100))).toBe(250_000);
    expect(burstFor(mbpsToBytes(1000))).toBe(2_500_000);
    // The clamps.
    expect(burstFor(mbpsToBytes(1))).toBe(MIN_BURST_BYTES);
    expect(burstFor(1)).toBe(4096);
    expect(burstFor(mbpsToBytes(10_000))).toBe(MAX_BURST_BYTES);
    expect(MAX_BURST_BYTES).toBe(4 * 1024 * 1024);
    expect(burstFor(0)).toBe(Infinity);
    expect(() => burstFor(-1)).toThrow(RangeError);
    expect(() => burstFor(Number.NaN)).toThrow(RangeError);
    expect(new TokenBucket(mbpsToBytes(100), new ManualClock()).burst).toBe(250_000);
  });

  it('rate 0 is unlimited: everything goes at once, no timer', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(0, clock);
    expect(bucket.unlimited).toBe(true);
    for (let i = 0; i < 100; i++) await bucket.take(64 * 1024 * 1024);
    expect(bucket.tryTake(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(clock.timersSet).toBe(0);
  });

  it('starts full, then waits exactly the time the missing tokens need', async () => {
    const clock = new ManualClock();
    const rate = 100_000; // burst 4096 (clamped)
    const bucket = new TokenBucket(rate, clock);
    expect(bucket.available).toBe(4096);
    await bucket.take(4096);
    const waiting = tracked(bucket.take(1000)); // needs 10 ms
    await flush();
    expect(waiting.done).toBe(false);
    expect(clock.pending).toBe(1);
    await clock.advance(9);
    expect(waiting.done).toBe(false);
    await clock.advance(1);
    expect(waiting.done).toBe(true);
    expect(clock.timersSet).toBe(1);
  });

  it('keeps the average rate over many takes, with one timer at a time', async () => {
    const clock = new ManualClock();
    const rate = mbpsToBytes(20); // 2.5 MB/s, burst 50 kB
    const bucket = new TokenBucket(rate, clock);
    let sent = 0;
    const started = clock.time;
    const chunk = 16 * 1024;
    const loop = (async () => {
      while (sent < 5 * rate) {
        await bucket.take(chunk);
        sent += chunk;
      }
    })();
    while (sent < 5 * rate) {
      expect(clock.pending).toBeLessThanOrEqual(1);
      await clock.advance(5);
    }
    await loop;
    const seconds = (clock.time - started) / 1000;
    // 5 s of data, less the initial burst, within a tick.
    expect(seconds).toBeGreaterThan(4.9);
    expect(seconds).toBeLessThan(5.05);
  });

  it('grants a request larger than the burst once full, leaving a debt', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock); // burst 4096
    await bucket.take(50_000); // full bucket: granted at once
    expect(bucket.available).toBe(4096 - 50_000);
    const next = tracked(bucket.take(1));
    // The debt (45,904 bytes) plus one byte takes 459.05 ms at 100 kB/s.
    await clock.advance(459);
    expect(next.done).toBe(false);
    await clock.advance(1);
    expect(next.done).toBe(true);
  });

  it('serves waiters first come, first served', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock);
    await bucket.take(4096);
    const order: number[] = [];
    const all = [1, 2, 3].map((n) => bucket.take(2000).then(() => order.push(n)));
    await clock.advance(100);
    await Promise.all(all);
    expect(order).toEqual([1, 2, 3]);
    expect(bucket.tryTake(1)).toBe(true);
  });

  it('reconfigure resets the remainder: full at the new rate, waiters re-timed', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock); // burst 4096
    await bucket.take(8192); // granted when full: 4096 in debt
    expect(bucket.available).toBe(-4096);
    bucket.reconfigure(mbpsToBytes(10)); // burst 25,000, full again
    expect(bucket.burst).toBe(25_000);
    expect(bucket.available).toBe(25_000);
    await bucket.take(25_000);
    expect(bucket.available).toBe(0);

    // A waiter that would need 1 s at the old rate goes at once when the rate becomes unlimited.
    bucket.reconfigure(1000);
    await bucket.take(4096);
    const waiting = tracked(bucket.take(4096));
    await clock.advance(10);
    expect(waiting.done).toBe(false);
    bucket.reconfigure(0);
    await flush();
    expect(waiting.done).toBe(true);
    expect(clock.pending).toBe(0);

    // ... and one that waits at a low rate is re-timed at a higher one.
    bucket.reconfigure(1000); // burst 4096
    await bucket.take(4096);
    const slow = tracked(bucket.take(4096)); // 4.1 s at 1000 B/s
    await clock.advance(10);
    bucket.reconfigure(1000); // reset: full again, so it goes now
    await flush();
    expect(slow.done).toBe(true);
  });

  it('take is abortable: the waiter leaves the queue, takes no tokens, and the next is served', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock);
    await bucket.take(4096);
    const controller = new AbortController();
    const first = tracked(bucket.take(3000, controller.signal));
    const second = tracked(bucket.take(1000));
    await clock.advance(5);
    controller.abort(new Error('client left'));
    await flush();
    expect(first.done).toBe(true);
    expect((first.error as Error).message).toBe('client left');
    expect(bucket.waiting).toBe(1);
    // The second needed 1000 tokens: 10 ms from the start, 5 ms from now.
    await clock.advance(5);
    expect(second.done).toBe(true);
    expect(second.error).toBeUndefined();
    expect(clock.pending).toBe(0);

    const aborted = AbortSignal.abort(new Error('already'));
    await expect(bucket.take(1, aborted)).rejects.toThrow('already');
  });

  it('keeps one abort listener per signal however often a stream waits, and an abort frees all its waiters', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock); // burst 4096
    const controller = new AbortController();
    const { signal } = controller;
    for (let i = 0; i < 20; i++) {
      const grant = tracked(bucket.take(4096, signal));
      while (!grant.done) await clock.advance(1);
      expect(grant.error).toBeUndefined();
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    // Two waiters of the signal and one of another stream between them.
    const first = tracked(bucket.take(4096, signal));
    const other = tracked(bucket.take(1000));
    const second = tracked(bucket.take(500, signal));
    await clock.advance(5);
    controller.abort(new Error('client left'));
    await flush();
    expect(first.error).toMatchObject({ message: 'client left' });
    expect(second.error).toMatchObject({ message: 'client left' });
    expect(bucket.waiting).toBe(1);
    // The other stream's 1000 tokens come 10 ms after the 20th grant emptied the bucket: no tokens went to
    // the aborted waiters.
    await clock.advance(5);
    expect(other.done).toBe(true);
    expect(other.error).toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('takeAvailable hands out the tokens there are now, none while others wait, all when unlimited', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(100_000, clock); // burst 4096
    expect(bucket.takeAvailable(1000)).toBe(1000);
    expect(bucket.takeAvailable(10_000)).toBe(3096);
    expect(bucket.takeAvailable(10_000)).toBe(0);
    await clock.advance(10); // 1000 tokens
    const waiter = tracked(bucket.take(2000));
    expect(bucket.takeAvailable(500)).toBe(0); // the queue goes first
    await clock.advance(10);
    expect(waiter.done).toBe(true);
    expect(bucket.available).toBe(0);
    // Credit a late timer left (the waiter's catch-up reserve) is handed out whole.
    clock.lateBy = 50;
    const late = tracked(bucket.take(1000));
    await clock.advance(60);
    expect(late.done).toBe(true);
    expect(bucket.takeAvailable(1_000_000)).toBe(5000);
    expect(new TokenBucket(0, clock).takeAvailable(123_456)).toBe(123_456);
    expect(() => bucket.takeAvailable(-1)).toThrow(RangeError);
  });

  it('makes up for late timers: a starved stream still averages its rate', async () => {
    const clock = new ManualClock();
    clock.lateBy = 80; // each wakeup ~80 ms late, where the wait itself is ~10 ms
    const rate = mbpsToBytes(20); // burst 50 kB, the sender's slices half of it
    const bucket = new TokenBucket(rate, clock);
    const slice = bucket.burst / 2;
    let sent = 0;
    while (clock.time < 10_000) {
      const grant = tracked(bucket.take(slice));
      await flush();
      while (!grant.done) await clock.advance(1);
      sent += slice;
    }
    const expected = 10 * rate + bucket.burst;
    // Before the catch-up reserve this delivered about 22 % of the rate.
    expect(Math.abs(sent - expected) / expected).toBeLessThan(0.05);
  });

  it('bounds the catch-up by one second of the rate (at most 4 MiB)', async () => {
    expect(catchUpReserveFor(mbpsToBytes(20))).toBe(2_500_000);
    expect(catchUpReserveFor(mbpsToBytes(1000))).toBe(MAX_BURST_BYTES);
    expect(catchUpReserveFor(0)).toBe(0);
    const clock = new ManualClock();
    const rate = mbpsToBytes(20);
    const bucket = new TokenBucket(rate, clock);
    await bucket.take(bucket.burst);
    clock.lateBy = 5_000; // one wakeup five seconds late
    const waiter = tracked(bucket.take(1000));
    await clock.advance(5_100);
    expect(waiter.done).toBe(true);
    // What is left after the late grant: the burst plus one second, not five seconds of credit.
    expect(bucket.available).toBeCloseTo(bucket.burst + rate - 1000, -3);
  });

  it('gives a stream that went quiet only the plain burst when it resumes', async () => {
    const clock = new ManualClock();
    const rate = mbpsToBytes(20);
    const bucket = new TokenBucket(rate, clock);
    await bucket.take(bucket.burst);
    clock.lateBy = 500;
    const waiter = tracked(bucket.take(1000));
    await clock.advance(600);
    expect(waiter.done).toBe(true);
    expect(bucket.available).toBeGreaterThan(bucket.burst); // reserve gathered while waiting
    await clock.advance(2_000); // nobody takes: paused playback
    expect(bucket.available).toBe(bucket.burst);
    // Idle time never builds credit past the burst.
    await clock.advance(10_000);
    expect(bucket.available).toBe(bucket.burst);
  });

  it('refuses nonsense', () => {
    const bucket = new TokenBucket(1000, new ManualClock());
    expect(() => bucket.take(-1)).toThrow(RangeError);
    expect(() => bucket.take(1.5)).toThrow(RangeError);
    expect(() => bucket.reconfigure(-5)).toThrow(RangeError);
    expect(() => new TokenBucket(Infinity)).toThrow(RangeError);
  });

  it('works on the real clock without a busy loop', async () => {
    const rate = 1_000_000; // burst 20,000
    const bucket = new TokenBucket(rate);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    for (let sent = 0; sent < 300_000; sent += 20_000) await bucket.take(20_000);
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    // 300 kB less the initial 20 kB burst at 1 MB/s: 280 ms.
    expect(elapsed).toBeGreaterThan(270);
    expect(elapsed).toBeLessThan(450);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(elapsed / 2);
  });
});
