import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCache, MemoryCache, type Cache } from '../../../src/platform/cache/index.js';
import { createLogger } from '../../../src/platform/logger.js';
import { LOGIN_LOCK, LoginLock } from '../../../src/services/user/auth/login-lock.js';
import { ManualClock } from './support.js';

const IP = '198.51.100.7';

async function fail(lock: LoginLock, times: number, user = 'alice', ip = IP): Promise<boolean[]> {
  const locked: boolean[] = [];
  for (let i = 0; i < times; i++) locked.push((await lock.recordFailure(ip, user)).locked);
  return locked;
}

describe('login lock (in-process cache, injected clock)', () => {
  const setup = () => {
    const clock = new ManualClock();
    return { clock, lock: new LoginLock(new MemoryCache(clock), clock) };
  };

  it('locks exactly at the fifth consecutive failure, not before', async () => {
    const { lock } = setup();
    expect(await fail(lock, 4)).toEqual([false, false, false, false]);
    expect(await lock.lockedForMs(IP, 'alice')).toBe(0);
    expect(await fail(lock, 1)).toEqual([true]);
    expect(await lock.lockedForMs(IP, 'alice')).toBe(LOGIN_LOCK.lockMs);
  });

  it('keeps the pair locked for 60 s and releases it then', async () => {
    const { lock, clock } = setup();
    await fail(lock, 5);
    clock.advance(59_001);
    expect(await lock.lockedForMs(IP, 'alice')).toBe(999);
    clock.advance(999);
    expect(await lock.lockedForMs(IP, 'alice')).toBe(0);
    // After the lock a new run starts: one failure does not lock again.
    expect(await fail(lock, 1)).toEqual([false]);
  });

  it('lets the counter expire 120 s after the first failure of the run', async () => {
    const { lock, clock } = setup();
    await fail(lock, 4);
    clock.advance(LOGIN_LOCK.counterMs);
    expect(await fail(lock, 1)).toEqual([false]);
    expect(await lock.lockedForMs(IP, 'alice')).toBe(0);
    // ...and that failure started a new run: three more do not lock, the fifth of the run does.
    expect(await fail(lock, 3)).toEqual([false, false, false]);
    expect(await fail(lock, 1)).toEqual([true]);
  });

  it('counts from the first failure, not the latest: failures spread over 119 s still lock', async () => {
    const { lock, clock } = setup();
    await fail(lock, 1);
    for (let i = 0; i < 3; i++) {
      clock.advance(39_000);
      await fail(lock, 1);
    }
    clock.advance(1_999); // 118.999 s after the first failure
    expect(await fail(lock, 1)).toEqual([true]);
  });

  it('resets the counter on success', async () => {
    const { lock } = setup();
    await fail(lock, 4);
    await lock.recordSuccess(IP, 'alice');
    expect(await fail(lock, 4)).toEqual([false, false, false, false]);
    expect(await fail(lock, 1)).toEqual([true]);
  });

  it('keeps pairs apart: another IP or another user name is not locked; case and spaces do not matter', async () => {
    const { lock } = setup();
    await fail(lock, 5, 'Alice');
    expect(await lock.lockedForMs(IP, ' alice ')).toBeGreaterThan(0);
    expect(await lock.lockedForMs('198.51.100.8', 'alice')).toBe(0);
    expect(await lock.lockedForMs(IP, 'bob')).toBe(0);
  });
});

// Two service instances on one Redis must agree. In CI the Redis variant is required.
const redisUrl = process.env.SVC_TEST_REDIS_URL;
if (!redisUrl && process.env.CI === 'true') {
  throw new Error('SVC_TEST_REDIS_URL must be set in CI: the shared login lock test may not be skipped');
}

if (redisUrl) {
  describe('login lock shared by two instances on one Redis', () => {
    const caches: Cache[] = [];
    const keyPrefix = `svc-test-lock:${randomUUID()}:`;
    const logger = createLogger({ level: 'silent', component: 'test' });
    afterAll(async () => {
      await Promise.all(caches.map((cache) => cache.close()));
    });

    const twoInstances = async () => {
      const clock = new ManualClock();
      const a = await createCache({ redisUrl, keyPrefix, logger, clock });
      const b = await createCache({ redisUrl, keyPrefix, logger, clock });
      caches.push(a, b);
      expect([a.mode, b.mode]).toEqual(['redis', 'redis']);
      return { clock, first: new LoginLock(a, clock), second: new LoginLock(b, clock) };
    };

    it('counts failures from both instances towards one lock that both see', async () => {
      const { first, second } = await twoInstances();
      const user = `user-${randomUUID()}`;
      expect(await fail(first, 2, user)).toEqual([false, false]);
      expect(await fail(second, 2, user)).toEqual([false, false]);
      expect(await second.lockedForMs(IP, user)).toBe(0);
      expect(await fail(first, 1, user)).toEqual([true]);
      expect(await second.lockedForMs(IP, user)).toBe(LOGIN_LOCK.lockMs);
    });

    it('locks exactly once under concurrent failures from both instances', async () => {
      const { first, second } = await twoInstances();
      const user = `user-${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => (i % 2 === 0 ? first : second).recordFailure(IP, user)),
      );
      expect(results.map((r) => r.failures).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(results.filter((r) => r.locked)).toHaveLength(1);
      expect(await first.lockedForMs(IP, user)).toBeGreaterThan(0);
    });

    it('decides with the injected clock even though Redis keeps the keys', async () => {
      const { first, second, clock } = await twoInstances();
      const user = `user-${randomUUID()}`;
      await fail(first, 4, user);
      clock.advance(LOGIN_LOCK.counterMs);
      expect(await fail(second, 1, user)).toEqual([false]);
      await fail(first, 3, user);
      expect(await fail(second, 1, user)).toEqual([true]);
      clock.advance(LOGIN_LOCK.lockMs);
      expect(await first.lockedForMs(IP, user)).toBe(0);
      await second.recordSuccess(IP, user);
      expect(await fail(first, 4, user)).toEqual([false, false, false, false]);
    });
  });
}
