import { describe, expect, it } from 'vitest';
import { MemoryCache, createCache } from '../../../src/platform/cache/index.js';
import { cacheBehaviour } from './behaviour.js';
import { FakeClock, captureLogger, freePort, WARN } from './helpers.js';
import { waitUntil } from '../../support/wait.js';

describe('MemoryCache (fake clock)', () => {
  cacheBehaviour(
    async () => {
      const clock = new FakeClock();
      const cache = new MemoryCache(clock);
      return Promise.resolve({
        cache,
        advance: async (ms: number) => {
          clock.advance(ms);
          return Promise.resolve();
        },
        close: () => cache.close(),
      });
    },
    120_000,
    1,
  );

  it('reports mode memory', async () => {
    const cache = new MemoryCache();
    expect(cache.mode).toBe('memory');
    await cache.close();
  });

  it('sweeps expired entries that are never read again', async () => {
    const clock = new FakeClock();
    const cache = new MemoryCache(clock, { sweepIntervalMs: 10 });
    await cache.set('a', '1', 1_000);
    await cache.set('b', '2');
    clock.advance(1_001);
    // Read through the internal map size, not get(), which would expire the key itself.
    await waitUntil(() => cache['entries'].size === 1, 'the sweep of the expired entry');
    expect(cache.size).toBe(1);
    await cache.close();
  });

  it('treats the same handler subscribed twice as two subscriptions', async () => {
    const cache = new MemoryCache();
    const received: string[] = [];
    const handler = (message: string): void => void received.push(message);
    const first = await cache.subscribe('c', handler);
    await cache.subscribe('c', handler);
    await cache.publish('c', 'x');
    expect(received).toEqual(['x', 'x']);
    await first();
    await cache.publish('c', 'y');
    expect(received).toEqual(['x', 'x', 'y']);
    await cache.close();
  });

  it('logs subscriber errors when given a logger', async () => {
    const { logger, records } = captureLogger();
    const cache = new MemoryCache(undefined, { logger });
    await cache.subscribe('c', () => {
      throw new Error('boom');
    });
    await cache.publish('c', 'x');
    expect(records.some((r) => r.msg === 'cache subscriber failed')).toBe(true);
    await cache.close();
  });
});

describe('createCache without Redis', () => {
  it('returns an in-process cache in memory mode', async () => {
    const { logger, records } = captureLogger();
    const cache = await createCache({ logger });
    expect(cache.mode).toBe('memory');
    await cache.set('k', 'v');
    expect(await cache.get('k')).toBe('v');
    expect(records.filter((r) => r.level >= WARN)).toEqual([]);
    await cache.close();
  });
});

describe('createCache with Redis configured but unreachable (degraded, fake clock)', () => {
  // The in-process fallback must honour the injected clock and the full contract.
  cacheBehaviour(
    async () => {
      const clock = new FakeClock();
      const { logger } = captureLogger();
      const cache = await createCache({ redisUrl: `redis://127.0.0.1:${await freePort()}`, logger, clock });
      expect(cache.mode).toBe('degraded');
      return {
        cache,
        advance: async (ms: number) => {
          clock.advance(ms);
          return Promise.resolve();
        },
        close: () => cache.close(),
      };
    },
    120_000,
    1,
  );
});
