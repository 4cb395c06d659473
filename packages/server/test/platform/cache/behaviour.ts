import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Cache } from '../../../src/platform/cache/index.js';
import { waitFor } from './helpers.js';

export interface BehaviourTarget {
  cache: Cache;
  /** Moves time forward: a fake clock for the in-process cache, real sleeping for Redis. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The Cache contract, shared by every implementation. `ttl` is the TTL unit the tests use (short for Redis, which
 * really has to wait), `slack` the clock tolerance when comparing remaining lifetimes.
 */
export function cacheBehaviour(setup: () => Promise<BehaviourTarget>, ttl: number, slack: number): void {
  let target: BehaviourTarget;
  let cache: Cache;
  let counter = 0;
  const key = (name: string): string => `${name}:${++counter}`;

  beforeEach(async () => {
    target = await setup();
    cache = target.cache;
  });
  afterEach(async () => {
    await target.close();
  });

  it('gets, sets, overwrites and deletes values', async () => {
    const k = key('plain');
    expect(await cache.get(k)).toBeNull();
    await cache.set(k, 'one');
    expect(await cache.get(k)).toBe('one');
    await cache.set(k, 'two');
    expect(await cache.get(k)).toBe('two');
    await cache.del(k);
    expect(await cache.get(k)).toBeNull();
    await cache.del(k); // deleting an absent key is fine
  });

  it('expires values after their TTL and reports the remaining lifetime', async () => {
    const k = key('ttl');
    await cache.set(k, 'v', ttl);
    const remaining = await cache.ttlMs(k);
    expect(remaining).not.toBeNull();
    expect(remaining).toBeGreaterThan(ttl - slack);
    expect(remaining).toBeLessThanOrEqual(ttl);
    await target.advance(ttl / 2);
    expect(await cache.get(k)).toBe('v');
    await target.advance(ttl / 2 + slack);
    expect(await cache.get(k)).toBeNull();
    expect(await cache.ttlMs(k)).toBeNull();
  });

  it('reports no TTL for absent keys and keys without expiry; set without TTL removes an expiry', async () => {
    const k = key('noexpiry');
    expect(await cache.ttlMs(k)).toBeNull();
    await cache.set(k, 'v');
    expect(await cache.ttlMs(k)).toBeNull();
    await cache.set(k, 'v', ttl);
    expect(await cache.ttlMs(k)).not.toBeNull();
    await cache.set(k, 'w');
    expect(await cache.ttlMs(k)).toBeNull();
    await target.advance(ttl + slack);
    expect(await cache.get(k)).toBe('w');
  });

  it('setIfAbsent sets only when absent (or expired)', async () => {
    const k = key('nx');
    expect(await cache.setIfAbsent(k, 'first', ttl)).toBe(true);
    expect(await cache.setIfAbsent(k, 'second', ttl)).toBe(false);
    expect(await cache.get(k)).toBe('first');
    expect(await cache.ttlMs(k)).toBeGreaterThan(0);
    await target.advance(ttl + slack);
    expect(await cache.setIfAbsent(k, 'third', ttl)).toBe(true);
    expect(await cache.get(k)).toBe('third');
  });

  it('incr counts, sets the TTL at creation and does not extend it', async () => {
    const k = key('counter');
    expect(await cache.incr(k, ttl)).toBe(1);
    expect(await cache.incr(k, ttl)).toBe(2);
    await target.advance(ttl / 2);
    expect(await cache.incr(k, ttl)).toBe(3);
    const remaining = await cache.ttlMs(k);
    expect(remaining).not.toBeNull();
    // Still counting down from creation: at most half the TTL is left, not a fresh TTL.
    expect(remaining).toBeLessThanOrEqual(ttl / 2);
    expect(await cache.get(k)).toBe('3');
    await target.advance(ttl / 2 + slack);
    expect(await cache.get(k)).toBeNull();
    expect(await cache.incr(k, ttl)).toBe(1);
  });

  it('incr gives a counter found without expiry a TTL, and rejects non-integer values', async () => {
    const k = key('counter-noexpiry');
    await cache.set(k, '41');
    expect(await cache.incr(k, ttl)).toBe(42);
    expect(await cache.ttlMs(k)).toBeGreaterThan(0);
    const text = key('text');
    await cache.set(text, 'not a number');
    await expect(cache.incr(text, ttl)).rejects.toThrow();
    expect(await cache.get(text)).toBe('not a number');
  });

  it('rejects non-positive TTLs', async () => {
    await expect(cache.set(key('bad'), 'v', 0)).rejects.toBeInstanceOf(RangeError);
    await expect(cache.setIfAbsent(key('bad'), 'v', -5)).rejects.toBeInstanceOf(RangeError);
    await expect(cache.incr(key('bad'), Number.NaN)).rejects.toBeInstanceOf(RangeError);
  });

  it('login lockout pattern: five failures within the window, then locked until expiry', async () => {
    const k = key('login-fail:203.0.113.9:alice');
    let count = 0;
    for (let i = 0; i < 5; i += 1) count = await cache.incr(k, 2 * ttl);
    expect(count).toBe(5);
    expect(await cache.setIfAbsent(key('lock'), '1', ttl)).toBe(true);
    await target.advance(2 * ttl + slack);
    expect(await cache.get(k)).toBeNull();
  });

  it('delivers published messages to subscribers until they unsubscribe; failing handlers are contained', async () => {
    const channel = key('chan');
    const marker = key('marker');
    const received: string[] = [];
    const markers: string[] = [];
    const failing = await cache.subscribe(channel, () => {
      throw new Error('handler bug');
    });
    const asyncHandler = async (): Promise<void> => {
      await Promise.resolve();
      throw new Error('async handler bug');
    };
    // Deliberately async: a rejected promise from a handler must be contained too.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    const failingAsync = await cache.subscribe(channel, asyncHandler);
    const unsubscribe = await cache.subscribe(channel, (message) => received.push(message));
    await cache.subscribe(marker, (message) => markers.push(message));

    await cache.publish(channel, 'hello');
    await cache.publish(channel, 'world');
    await waitFor(() => received.length === 2, 3_000, 'two messages');
    expect(received).toEqual(['hello', 'world']);

    await unsubscribe();
    await unsubscribe(); // idempotent
    await failing();
    await failingAsync();
    await cache.publish(channel, 'after');
    await cache.publish(marker, 'done');
    // Messages arrive in order, so once the marker is in, 'after' would have been too.
    await waitFor(() => markers.length === 1, 3_000, 'marker message');
    expect(received).toEqual(['hello', 'world']);
  });
}
