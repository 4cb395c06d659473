import type { Logger } from '../logger.js';

/** Source of the current time in ms since the epoch. Injected so tests can move time without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** 'degraded': Redis is configured but unreachable, so the cache is serving from process memory. */
export type CacheMode = 'memory' | 'redis' | 'degraded';

/**
 * A small key/value cache with counters and pub/sub. Values are strings; TTLs are in milliseconds and must be
 * positive (a non-positive or non-finite TTL is a programming error and rejects with a RangeError).
 */
export interface Cache {
  get(key: string): Promise<string | null>;
  /** Stores the value; without ttlMs the key never expires (and any previous expiry is removed). */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only if absent; true when it was set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /**
   * Increments an integer counter; the TTL is set when the counter is created and not extended by later
   * increments. (A counter found without any expiry, e.g. written by `set` without a TTL, gets the TTL too, so
   * a counter can never live forever.) Rejects when the stored value is not an integer.
   */
  incr(key: string, ttlMs: number): Promise<number>;
  /** Remaining lifetime in ms, or null when the key is absent or has no expiry. */
  ttlMs(key: string): Promise<number | null>;
  /** Best effort, at most once per subscriber in steady state; messages can be lost while Redis is unreachable. */
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. Handlers never throw into the cache. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /** 'memory' | 'redis' | 'degraded' (Redis configured but unreachable: serving from memory). */
  readonly mode: CacheMode;
  close(): Promise<void>;
}

export interface CacheOptions {
  /** redis:// or rediss:// URL (SVC_REDIS_URL). Without it the cache lives in process memory. */
  redisUrl?: string;
  /** Prefix of every Redis key and pub/sub channel. Default 'svc:'. */
  keyPrefix?: string;
  logger: Logger;
  /** Clock of the in-process cache (also the fallback while Redis is down). Redis expiries use Redis' clock. */
  clock?: Clock;
}

export const DEFAULT_KEY_PREFIX = 'svc:';

/** Checks a TTL argument and rounds it up to whole milliseconds. */
export function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`cache TTL must be a positive number of milliseconds, got ${String(ttlMs)}`);
  }
  return Math.ceil(ttlMs);
}

/** Calls a subscriber without letting it throw (or reject) into the cache. */
export function deliver(
  handler: (message: string) => void,
  channel: string,
  message: string,
  logger: Logger | undefined,
): void {
  const report = (err: unknown): void => {
    logger?.error({ err, channel }, 'cache subscriber failed');
  };
  try {
    const result: unknown = handler(message);
    if (result instanceof Promise) result.catch(report);
  } catch (err) {
    report(err);
  }
}
