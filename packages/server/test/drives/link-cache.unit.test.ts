import { describe, expect, it } from 'vitest';
import {
  FALLBACK_TTL_MS,
  LinkCache,
  NEGATIVE_TTL_MS,
  linkTtlMs,
  type ResolvedLink,
} from '../../src/services/play-agent/redirect/link-cache.js';
import { linkExpiry } from '../../src/services/storage/drives/link-expiry.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

class TokenInvalid extends Error {}

function cacheWithClock() {
  const clock = { now: T0 };
  const cache = new LinkCache({
    now: () => clock.now,
    isTokenInvalid: (error) => error instanceof TokenInvalid,
  });
  return { clock, cache };
}

const link = (expiresAt: Date | null, url = 'https://cdn.example/x'): ResolvedLink => ({
  url,
  expiresAt,
  headers: {},
});

describe('link TTL rules', () => {
  it('uses the expiry minus one minute when more than two minutes remain', () => {
    expect(linkTtlMs(new Date(T0 + 10 * MINUTE), T0)).toBe(9 * MINUTE);
    expect(linkTtlMs(new Date(T0 + 2 * MINUTE + 1), T0)).toBe(MINUTE + 1);
  });

  it('falls back to 30 minutes for a link without expiry, and keeps a link about to expire not at all', () => {
    expect(linkTtlMs(null, T0)).toBe(FALLBACK_TTL_MS);
    expect(FALLBACK_TTL_MS).toBe(30 * MINUTE);
    expect(linkTtlMs(new Date(T0 + 2 * MINUTE), T0)).toBe(0);
    expect(linkTtlMs(new Date(T0 - MINUTE), T0)).toBe(0);
  });

  it('reads the expiry parameter of signed links', () => {
    expect(linkExpiry('https://d.example/f?expires=1767225600&sign=x')?.getTime()).toBe(1767225600_000);
    expect(
      linkExpiry(
        'https://s3.example/b/k?X-Amz-Date=20260101T000000Z&X-Amz-Expires=600&X-Amz-Signature=a',
      )?.getTime(),
    ).toBe(T0 + 10 * MINUTE);
    expect(linkExpiry('https://d.example/f?sign=x')).toBeNull();
    expect(linkExpiry('not a url')).toBeNull();
  });
});

describe('LinkCache', () => {
  it('hands out a cached link until one minute before its expiry, then asks again', async () => {
    const { clock, cache } = cacheWithClock();
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      return link(new Date(clock.now + 10 * MINUTE), `https://cdn.example/${calls}`);
    };
    const key = LinkCache.key('drive_a', 'item-1', 'account-1');
    expect(key).toBe('drive_a:item-1:account-1');
    expect((await cache.get(key, fetch)).url).toBe('https://cdn.example/1');
    clock.now += 9 * MINUTE - 1;
    expect((await cache.get(key, fetch)).url).toBe('https://cdn.example/1');
    clock.now += 1;
    expect((await cache.get(key, fetch)).url).toBe('https://cdn.example/2');
    expect(calls).toBe(2);
  });

  it('keeps links of different accounts apart', async () => {
    const { cache } = cacheWithClock();
    const a = await cache.get(LinkCache.key('drive_a', 'i', 'acc-1'), async () =>
      link(null, 'https://a.example/'),
    );
    const b = await cache.get(LinkCache.key('drive_a', 'i', 'acc-2'), async () =>
      link(null, 'https://b.example/'),
    );
    expect([a.url, b.url]).toEqual(['https://a.example/', 'https://b.example/']);
  });

  it('does not keep a link that expires within two minutes', async () => {
    const { clock, cache } = cacheWithClock();
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      return link(new Date(clock.now + MINUTE));
    };
    await cache.get('k', fetch);
    await cache.get('k', fetch);
    expect(calls).toBe(2);
  });

  it('remembers a refused token for five minutes, other failures not at all', async () => {
    const { clock, cache } = cacheWithClock();
    let calls = 0;
    const refused = async (): Promise<ResolvedLink> => {
      calls += 1;
      throw new TokenInvalid('token is invalidated');
    };
    await expect(cache.get('k', refused)).rejects.toBeInstanceOf(TokenInvalid);
    clock.now += NEGATIVE_TTL_MS - 1;
    await expect(cache.get('k', refused)).rejects.toBeInstanceOf(TokenInvalid);
    expect(calls).toBe(1);
    clock.now += 1;
    await expect(cache.get('k', refused)).rejects.toBeInstanceOf(TokenInvalid);
    expect(calls).toBe(2);

    let failures = 0;
    const broken = async (): Promise<ResolvedLink> => {
      failures += 1;
      throw new Error('down');
    };
    await expect(cache.get('other', broken)).rejects.toThrow('down');
    await expect(cache.get('other', broken)).rejects.toThrow('down');
    expect(failures).toBe(2);
  });

  it('merges 100 concurrent requests for one key into one call', async () => {
    const { cache } = cacheWithClock();
    let calls = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fetch = async () => {
      calls += 1;
      await held;
      return link(null);
    };
    const all = Array.from({ length: 100 }, () => cache.get('k', fetch));
    release();
    const links = await Promise.all(all);
    expect(calls).toBe(1);
    expect(new Set(links.map((one) => one.url)).size).toBe(1);
  });
});
