import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';
import { MemoryCache } from './memory.js';
import { checkTtl, deliver, type Cache, type CacheMode, type Clock } from './types.js';

/**
 * INCR, then give the counter its TTL when it was just created. A counter found without any expiry gets one as
 * well, so a key written by `set` without TTL cannot turn into a counter that never expires.
 */
const INCR_SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n`;
const INCR_SHA = createHash('sha1').update(INCR_SCRIPT).digest('hex');

/** Replies that are the caller's fault (wrong type, not a number): these reject instead of falling back. */
const CALLER_ERROR = /WRONGTYPE|not an integer|overflow/;

const FIRST_CONNECT_WAIT_MS = 2_500;
const QUIT_WAIT_MS = 1_000;

export interface RedisCacheOptions {
  redisUrl: string;
  keyPrefix: string;
  logger: Logger;
  clock: Clock;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isCallerError(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError' && CALLER_ERROR.test(err.message);
}

/** The Redis URL without credentials, for log lines. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return '[unparsable redis url]';
  }
}

/** Reconnect delays: 100 ms doubling up to 2 s, with a little jitter, forever. */
export function reconnectDelay(attempt: number): number {
  const base = Math.min(100 * 2 ** Math.min(Math.max(attempt - 1, 0), 5), 2_000);
  return base + Math.floor(Math.random() * 100);
}

function clientOptions(connectionName: string): RedisOptions {
  return {
    lazyConnect: true,
    connectionName,
    // Never queue or replay commands while disconnected: the caller is served from memory instead.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    // A command that gets no answer fails over to memory after this, and recycles the connection.
    commandTimeout: 1_500,
    keepAlive: 10_000,
    // The subscriber connection re-subscribes itself from our own registry on every 'ready'.
    autoResubscribe: false,
    retryStrategy: reconnectDelay,
  };
}

type Registration = (message: string) => void;

/**
 * Redis-backed cache that degrades to an internal MemoryCache while Redis is unreachable and goes back to Redis as
 * soon as the connection is ready again. Data written to memory during an outage is not copied to Redis; it is
 * dropped when Redis is back (so a later outage does not resurrect stale values).
 */
export class RedisCache implements Cache {
  private state: 'redis' | 'degraded' = 'degraded';
  /** True between the outage warning and the recovery info, so one outage logs one warning. */
  private outageLogged = false;
  private subscriberLive = false;
  private closed = false;
  private lastError: string | undefined;
  private readonly fallback: MemoryCache;
  private readonly command: Redis;
  private readonly subscriber: Redis;
  private readonly channels = new Map<string, Set<Registration>>();
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly target: string;

  private constructor(options: RedisCacheOptions) {
    this.prefix = options.keyPrefix;
    this.logger = options.logger;
    this.target = describeRedisUrl(options.redisUrl);
    this.fallback = new MemoryCache(options.clock, { logger: options.logger });
    this.command = new Redis(options.redisUrl, clientOptions('svc-cache'));
    this.subscriber = new Redis(options.redisUrl, clientOptions('svc-cache-sub'));

    this.command.on('error', (err: Error) => {
      this.lastError = err.message;
      this.logger.debug({ err: err.message, redis: this.target }, 'redis connection error');
    });
    this.command.on('ready', () => this.onUp());
    this.command.on('close', () => this.onDown());
    this.command.on('end', () => this.onDown());

    this.subscriber.on('error', (err: Error) => {
      this.logger.debug({ err: err.message, redis: this.target }, 'redis subscriber connection error');
    });
    this.subscriber.on('ready', () => this.resubscribe());
    this.subscriber.on('close', () => {
      this.subscriberLive = false;
    });
    this.subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message));
  }

  /** Connects (waiting at most ~2.5 s) and returns the cache, in 'degraded' mode when Redis did not answer. */
  static async connect(options: RedisCacheOptions): Promise<RedisCache> {
    const cache = new RedisCache(options);
    await Promise.all([cache.firstOutcome(cache.command), cache.firstOutcome(cache.subscriber)]);
    if (cache.state !== 'redis') cache.onDown();
    return cache;
  }

  get mode(): CacheMode {
    return this.state;
  }

  /** Resolves on the first 'ready', 'close' or 'end' of a client, or after FIRST_CONNECT_WAIT_MS. */
  private async firstOutcome(client: Redis): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        client.off('ready', done);
        client.off('close', done);
        client.off('end', done);
        resolve();
      };
      const timer = setTimeout(done, FIRST_CONNECT_WAIT_MS);
      client.once('ready', done);
      client.once('close', done);
      client.once('end', done);
      // Failures are reported through the events above (and the 'error' listener); reconnects continue.
      client.connect().catch(() => undefined);
    });
  }

  private onUp(): void {
    if (this.closed || this.state === 'redis') return;
    this.state = 'redis';
    this.fallback.clear();
    if (this.outageLogged) {
      this.outageLogged = false;
      this.logger.info({ redis: this.target }, 'redis reachable again');
    } else {
      this.logger.info({ redis: this.target }, 'cache using redis');
    }
  }

  private onDown(): void {
    if (this.closed) return;
    this.state = 'degraded';
    if (!this.outageLogged) {
      this.outageLogged = true;
      this.logger.warn(
        { redis: this.target, err: this.lastError },
        'redis unreachable, using in-process cache',
      );
    }
  }

  /** A command failed for a reason other than the caller's: note it, and recycle a connection that hangs. */
  private onCommandFailure(err: unknown): void {
    this.lastError = errorMessage(err);
    this.logger.debug({ err: this.lastError }, 'redis command failed, served from memory');
    if (this.command.status !== 'ready') {
      this.onDown();
    } else if (this.lastError.includes('timed out')) {
      // The socket looks open but Redis does not answer (paused server, half-open connection): reconnect.
      this.onDown();
      this.command.disconnect(true);
    }
  }

  /** Runs a command on Redis when it is usable, otherwise (or when it fails) on the in-process fallback. */
  private async use<T>(
    viaRedis: (redis: Redis) => Promise<T>,
    viaMemory: (memory: MemoryCache) => Promise<T>,
  ): Promise<T> {
    if (this.closed || this.state !== 'redis' || this.command.status !== 'ready')
      return viaMemory(this.fallback);
    try {
      return await viaRedis(this.command);
    } catch (err) {
      if (isCallerError(err)) throw err;
      this.onCommandFailure(err);
      return viaMemory(this.fallback);
    }
  }

  private key(key: string): string {
    return this.prefix + key;
  }

  async get(key: string): Promise<string | null> {
    return this.use(
      (redis) => redis.get(this.key(key)),
      (memory) => memory.get(key),
    );
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    await this.use<unknown>(
      (redis) =>
        ttl === undefined ? redis.set(this.key(key), value) : redis.set(this.key(key), value, 'PX', ttl),
      (memory) => memory.set(key, value, ttl),
    );
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.use(
      async (redis) => (await redis.set(this.key(key), value, 'PX', ttl, 'NX')) === 'OK',
      (memory) => memory.setIfAbsent(key, value, ttl),
    );
  }

  async del(key: string): Promise<void> {
    await this.use<unknown>(
      (redis) => redis.del(this.key(key)),
      (memory) => memory.del(key),
    );
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    const ttl = checkTtl(ttlMs);
    return this.use(
      async (redis) => {
        let result: unknown;
        try {
          result = await redis.evalsha(INCR_SHA, 1, this.key(key), ttl);
        } catch (err) {
          // Scripts are gone after a Redis restart: EVAL loads it again.
          if (!errorMessage(err).startsWith('NOSCRIPT')) throw err;
          result = await redis.eval(INCR_SCRIPT, 1, this.key(key), ttl);
        }
        return Number(result);
      },
      (memory) => memory.incr(key, ttl),
    );
  }

  async ttlMs(key: string): Promise<number | null> {
    return this.use(
      async (redis) => {
        const ms = await redis.pttl(this.key(key));
        return ms < 0 ? null : ms;
      },
      (memory) => memory.ttlMs(key),
    );
  }

  async publish(channel: string, message: string): Promise<void> {
    const sentToRedis = await this.use(
      async (redis) => {
        await redis.publish(this.key(channel), message);
        return true;
      },
      () => Promise.resolve(false),
    );
    // Redis delivers to our own subscribers only through a live subscriber connection; otherwise do it here.
    if (!sentToRedis || !this.subscriberLive) this.dispatch(channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    // Each subscription is its own registration, even when the same function subscribes twice.
    const registration: Registration = (message) => handler(message);
    let handlers = this.channels.get(channel);
    const first = !handlers;
    if (!handlers) {
      handlers = new Set();
      this.channels.set(channel, handlers);
    }
    handlers.add(registration);
    if (first && !this.closed && this.subscriber.status === 'ready') {
      try {
        await this.subscriber.subscribe(this.key(channel));
      } catch (err) {
        // The 'ready' after the reconnect subscribes every registered channel.
        this.logger.debug({ err: errorMessage(err), channel }, 'redis subscribe failed');
      }
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      const current = this.channels.get(channel);
      if (!current?.delete(registration) || current.size > 0) return;
      this.channels.delete(channel);
      if (this.closed || this.subscriber.status !== 'ready') return;
      try {
        await this.subscriber.unsubscribe(this.key(channel));
      } catch (err) {
        this.logger.debug({ err: errorMessage(err), channel }, 'redis unsubscribe failed');
      }
    };
  }

  private resubscribe(): void {
    if (this.closed) return;
    const channels = [...this.channels.keys()].map((channel) => this.key(channel));
    if (channels.length === 0) {
      this.subscriberLive = true;
      return;
    }
    this.subscriber.subscribe(...channels).then(
      () => {
        this.subscriberLive = true;
      },
      (err: unknown) => {
        this.logger.debug({ err: errorMessage(err) }, 'redis resubscribe failed, reconnecting subscriber');
        // Try again on a fresh connection: its 'ready' subscribes everything again.
        if (!this.closed && this.subscriber.status === 'ready') this.subscriber.disconnect(true);
      },
    );
  }

  private onMessage(prefixedChannel: string, message: string): void {
    if (!prefixedChannel.startsWith(this.prefix)) return;
    this.dispatch(prefixedChannel.slice(this.prefix.length), message);
  }

  private dispatch(channel: string, message: string): void {
    const handlers = this.channels.get(channel);
    if (!handlers) return;
    for (const handler of [...handlers]) deliver(handler, channel, message, this.logger);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    await Promise.all([quit(this.command), quit(this.subscriber), this.fallback.close()]);
  }
}

/** QUIT politely when connected (bounded), then make sure the client stops reconnecting. */
async function quit(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      client.quit().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, QUIT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }
  client.disconnect();
}
