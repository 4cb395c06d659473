import { MemoryCache } from './memory.js';
import { RedisCache } from './redis.js';
import { DEFAULT_KEY_PREFIX, systemClock, type Cache, type CacheOptions } from './types.js';

export { MemoryCache, type MemoryCacheOptions } from './memory.js';
export { RedisCache, describeRedisUrl } from './redis.js';
export {
  DEFAULT_KEY_PREFIX,
  systemClock,
  type Cache,
  type CacheMode,
  type CacheOptions,
  type Clock,
} from './types.js';

/**
 * The process cache: in memory without `redisUrl`; with it, Redis while Redis is reachable and an in-process
 * fallback ('degraded' mode) while it is not. Never rejects because Redis is down: it waits at most ~2.5 s for the
 * first connection and otherwise starts degraded, reconnecting in the background.
 */
export async function createCache(options: CacheOptions): Promise<Cache> {
  const clock = options.clock ?? systemClock;
  if (!options.redisUrl) {
    options.logger.info('cache using process memory');
    return new MemoryCache(clock, { logger: options.logger });
  }
  return RedisCache.connect({
    redisUrl: options.redisUrl,
    keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
    logger: options.logger,
    clock,
  });
}
