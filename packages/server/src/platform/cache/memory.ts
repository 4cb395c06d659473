import type { Logger } from '../logger.js';
import { checkTtl, deliver, systemClock, type Cache, type CacheMode, type Clock } from './types.js';

interface Entry {
  value: string;
  /** Epoch ms at which the entry is gone, or null for no expiry. */
  expiresAt: number | null;
}

export interface MemoryCacheOptions {
  /** Receives errors thrown by subscribers. */
  logger?: Logger;
  /** How often expired entries are swept out of the map. Default 30 s. */
  sweepIntervalMs?: number;
}

const INTEGER = /^-?\d+$/;

/**
 * In-process cache: a Map whose expiries are checked against the injected clock on every read, plus a periodic
 * (unref'd) sweep so expired keys that are never read again do not pile up. Pub/sub delivers to this process only,
 * synchronously from `publish`.
 */
export class MemoryCache implements Cache {
  readonly mode: CacheMode = 'memory';
  private readonly entries = new Map<string, Entry>();
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(clock: Clock = systemClock, options: MemoryCacheOptions = {}) {
    this.clock = clock;
    this.logger = options.logger;
    this.sweepTimer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    this.sweepTimer.unref();
  }

  /** Number of live entries (for tests and diagnostics). */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /** Removes every expired entry. */
  sweep(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.entries.delete(key);
    }
  }

  /** Drops all entries (subscriptions stay). */
  clear(): void {
    this.entries.clear();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  async get(key: string): Promise<string | null> {
    return Promise.resolve(this.live(key)?.value ?? null);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const expiresAt = ttlMs === undefined ? null : this.clock.now() + checkTtl(ttlMs);
    this.entries.set(key, { value, expiresAt });
    return Promise.resolve();
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    if (this.live(key)) return Promise.resolve(false);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttl });
    return Promise.resolve(true);
  }

  async del(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    const ttl = checkTtl(ttlMs);
    const entry = this.live(key);
    if (!entry) {
      this.entries.set(key, { value: '1', expiresAt: this.clock.now() + ttl });
      return Promise.resolve(1);
    }
    if (!INTEGER.test(entry.value) || !Number.isSafeInteger(Number(entry.value) + 1)) {
      throw new Error(`cache value of ${key} is not an integer`);
    }
    const next = Number(entry.value) + 1;
    entry.value = String(next);
    if (entry.expiresAt === null) entry.expiresAt = this.clock.now() + ttl;
    return Promise.resolve(next);
  }

  async ttlMs(key: string): Promise<number | null> {
    const entry = this.live(key);
    if (!entry || entry.expiresAt === null) return Promise.resolve(null);
    return Promise.resolve(entry.expiresAt - this.clock.now());
  }

  async publish(channel: string, message: string): Promise<void> {
    const handlers = this.channels.get(channel);
    if (handlers) {
      // A copy: a handler may unsubscribe (or subscribe) while we iterate.
      for (const handler of [...handlers]) deliver(handler, channel, message, this.logger);
    }
    return Promise.resolve();
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    // Each subscription is its own registration, even when the same function subscribes twice.
    const registration = (message: string): void => handler(message);
    let handlers = this.channels.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.channels.set(channel, handlers);
    }
    handlers.add(registration);
    return Promise.resolve(async () => {
      const current = this.channels.get(channel);
      if (current?.delete(registration) && current.size === 0) this.channels.delete(channel);
      return Promise.resolve();
    });
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.channels.clear();
    this.entries.clear();
    return Promise.resolve();
  }
}
