import {
  DEFAULT_PROTOCOL_SERVER_INFO,
  type ClientProtocol,
  type PlayAgentPolicy,
  type ProtocolServerInfo,
} from '@svc/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/platform/logger.js';
import {
  INFO_FRESH_MS,
  PROTOCOL_VERSION,
  PolicyRefresher,
} from '../../../src/services/play-agent/policy-refresher.js';
import { ResponseCache } from '../../../src/services/play-agent/proto-a/response-cache.js';
import { waitUntil } from '../../support/wait.js';

const logger = createLogger({ level: 'silent', component: 'test' });

const policy = (overrides: Partial<PlayAgentPolicy> = {}): PlayAgentPolicy => ({
  protocol: 'proto_a',
  responseCache: false,
  metadataCacheTtlSeconds: 300,
  driveARedirect: false,
  ...overrides,
});

function harness(options: { supported?: readonly ClientProtocol[]; cache?: ResponseCache } = {}) {
  const config = { policy: vi.fn(async (): Promise<PlayAgentPolicy> => policy()) };
  const media = {
    protocolServerInfo: vi.fn(async (): Promise<ProtocolServerInfo> => ({
      serverName: 'Home',
      productName: 'Home Server',
    })),
  };
  const cache = options.cache ?? new ResponseCache();
  const refresher = new PolicyRefresher({
    config,
    media,
    cache,
    supported: options.supported ?? ['proto_a'],
    logger,
  });
  return { refresher, config, media, cache };
}

const down = () => Promise.reject(Object.assign(new Error('unreachable'), { statusCode: 503 }));

afterEach(() => {
  vi.useRealTimers();
});

describe('PolicyRefresher: protocol', () => {
  it('before any answer it serves proto_a with the default server information', () => {
    const { refresher, config } = harness();
    expect(refresher.serves('proto_a')).toBe(true);
    expect(refresher.serves('PROTO_B')).toBe(false);
    expect(refresher.current()).toMatchObject({ protocol: 'proto_a', responseCache: false });
    expect(refresher.serverInfo()).toEqual({ ...DEFAULT_PROTOCOL_SERVER_INFO, version: PROTOCOL_VERSION });
    expect(PROTOCOL_VERSION).toBe('4.8.10.0');
    expect(config.policy).not.toHaveBeenCalled();
  });

  it('a policy selecting PROTO_B stops proto_a', async () => {
    const { refresher, config } = harness({ supported: ['proto_a', 'PROTO_B'] });
    config.policy.mockResolvedValue(policy({ protocol: 'PROTO_B' }));
    await refresher.refresh();
    expect(refresher.serves('proto_a')).toBe(false);
    expect(refresher.serves('PROTO_B')).toBe(true);
  });

  it('proto_a not in supported_protocols is never served, even when the policy selects it', async () => {
    const { refresher, config } = harness({ supported: ['PROTO_B'] });
    expect(refresher.serves('proto_a')).toBe(false);
    config.policy.mockResolvedValue(policy({ protocol: 'proto_a' }));
    await refresher.refresh();
    expect(refresher.serves('proto_a')).toBe(false);
    expect(harness({ supported: [] }).refresher.serves('proto_a')).toBe(false);
  });

  it('a refresh takes the server information', async () => {
    const { refresher } = harness();
    await refresher.refresh();
    expect(refresher.serverInfo()).toEqual({
      serverName: 'Home',
      productName: 'Home Server',
      version: PROTOCOL_VERSION,
    });
  });

  it('a failing refresh keeps the last policy and server information', async () => {
    const { refresher, config, media } = harness({ supported: ['proto_a', 'PROTO_B'] });
    const configure = vi.spyOn(ResponseCache.prototype, 'configure');
    config.policy.mockResolvedValue(policy({ protocol: 'PROTO_B', responseCache: true }));
    await refresher.refresh();
    expect(configure).toHaveBeenCalledTimes(1);

    config.policy.mockImplementation(down);
    media.protocolServerInfo.mockImplementation(down);
    await expect(refresher.refresh()).resolves.toBeUndefined();
    await refresher.refresh();

    expect(refresher.serves('proto_a')).toBe(false);
    expect(refresher.current()).toMatchObject({ protocol: 'PROTO_B', responseCache: true });
    expect(refresher.serverInfo().serverName).toBe('Home');
    expect(configure).toHaveBeenCalledTimes(1);
    configure.mockRestore();
  });

  it('one failing upstream does not hold back the other answer', async () => {
    const { refresher, config, media } = harness({ supported: ['proto_a', 'PROTO_B'] });
    config.policy.mockResolvedValue(policy({ protocol: 'PROTO_B' }));
    media.protocolServerInfo.mockImplementation(down);
    await refresher.refresh();
    expect(refresher.serves('PROTO_B')).toBe(true);
    expect(refresher.serverInfo().serverName).toBe(DEFAULT_PROTOCOL_SERVER_INFO.serverName);

    config.policy.mockImplementation(down);
    media.protocolServerInfo.mockResolvedValue({ serverName: 'Later', productName: 'P' });
    await refresher.refresh();
    expect(refresher.serverInfo().serverName).toBe('Later');
    expect(refresher.serves('PROTO_B')).toBe(true);
  });
});

describe('PolicyRefresher: response cache', () => {
  it('responseCache true turns the real cache on: a second through() does not load', async () => {
    const { refresher, config, cache } = harness();
    const load = vi.fn(async () => ({ Items: [1] }));
    await cache.through('u1', '/Items', load);
    await cache.through('u1', '/Items', load);
    expect(load).toHaveBeenCalledTimes(2); // off by default

    config.policy.mockResolvedValue(policy({ responseCache: true, metadataCacheTtlSeconds: 300 }));
    await refresher.refresh();
    expect(cache.isEnabled).toBe(true);
    load.mockClear();
    await expect(cache.through('u1', '/Items', load)).resolves.toEqual({ Items: [1] });
    await expect(cache.through('u1', '/Items', load)).resolves.toEqual({ Items: [1] });
    expect(load).toHaveBeenCalledTimes(1);
    // Per user and per URL.
    await cache.through('u2', '/Items', load);
    await cache.through('u1', '/Items?Limit=1', load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('entries live for metadataCacheTtlSeconds', async () => {
    const { refresher, config, cache } = harness();
    config.policy.mockResolvedValue(policy({ responseCache: true, metadataCacheTtlSeconds: 1 }));
    await refresher.refresh();
    const load = vi.fn(async () => 'body');
    const cachedAt = Date.now();
    await cache.through('u1', '/Items', load);
    await cache.through('u1', '/Items', load);
    expect(load).toHaveBeenCalledTimes(1);
    await waitUntil(
      async () => {
        await cache.through('u1', '/Items', load);
        return load.mock.calls.length === 2;
      },
      'the entry to expire',
      5_000,
    );
    expect(Date.now() - cachedAt).toBeGreaterThanOrEqual(990);
  });

  it('responseCache false clears the cache and stops caching', async () => {
    const { refresher, config, cache } = harness();
    config.policy.mockResolvedValue(policy({ responseCache: true }));
    await refresher.refresh();
    const load = vi.fn(async () => 'body');
    await cache.through('u1', '/Items', load);

    config.policy.mockResolvedValue(policy({ responseCache: false }));
    await refresher.refresh();
    expect(cache.isEnabled).toBe(false);
    await cache.through('u1', '/Items', load);
    await cache.through('u1', '/Items', load);
    expect(load).toHaveBeenCalledTimes(3);

    // Switching back on finds nothing from before.
    config.policy.mockResolvedValue(policy({ responseCache: true }));
    await refresher.refresh();
    await cache.through('u1', '/Items', load);
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('a fake cache is configured with the policy values on every successful refresh', async () => {
    const configure = vi.fn();
    const config = {
      policy: vi.fn(async () => policy({ responseCache: true, metadataCacheTtlSeconds: 42 })),
    };
    const refresher = new PolicyRefresher({
      config,
      media: { protocolServerInfo: async () => DEFAULT_PROTOCOL_SERVER_INFO },
      cache: { configure },
      supported: ['proto_a'],
      logger,
    });
    await refresher.refresh();
    expect(configure).toHaveBeenCalledWith(true, 42);
    config.policy.mockImplementation(down);
    await refresher.refresh();
    expect(configure).toHaveBeenCalledTimes(1);
  });
});

describe('ResponseCache.forgetUser', () => {
  it('drops only that user’s entries', async () => {
    const cache = new ResponseCache();
    cache.configure(true, 300);
    const load = vi.fn(async () => 'body');
    // Interleaved, so deleting while walking the entries is exercised.
    for (const [user, url] of [
      ['a', '/1'],
      ['b', '/1'],
      ['a', '/2'],
      ['b', '/2'],
      ['a', '/3'],
    ] as const) {
      await cache.through(user, url, load);
    }
    expect(load).toHaveBeenCalledTimes(5);

    cache.forgetUser('a');

    load.mockClear();
    await cache.through('b', '/1', load);
    await cache.through('b', '/2', load);
    expect(load).not.toHaveBeenCalled();
    await cache.through('a', '/1', load);
    await cache.through('a', '/2', load);
    await cache.through('a', '/3', load);
    expect(load).toHaveBeenCalledTimes(3);
  });
});

describe('PolicyRefresher.freshServerInfo', () => {
  it('asks the media service again once the answer is older than INFO_FRESH_MS', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_700_000_000_000);
    const { refresher, media } = harness();
    await refresher.refresh();
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(1);

    media.protocolServerInfo.mockResolvedValue({ serverName: 'Renamed', productName: 'P' });
    vi.setSystemTime(1_700_000_000_000 + INFO_FRESH_MS);
    await expect(refresher.freshServerInfo()).resolves.toMatchObject({ serverName: 'Home' });
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(1);

    vi.setSystemTime(1_700_000_000_000 + INFO_FRESH_MS + 1);
    await expect(refresher.freshServerInfo()).resolves.toEqual({
      serverName: 'Renamed',
      productName: 'P',
      version: PROTOCOL_VERSION,
    });
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(2);
    expect(refresher.serverInfo().serverName).toBe('Renamed');

    // Fresh again: no call.
    await refresher.freshServerInfo();
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(2);
  });

  it('keeps the last answer when the media service fails', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_700_000_000_000);
    const { refresher, media } = harness();
    await refresher.refresh();
    media.protocolServerInfo.mockImplementation(down);
    vi.setSystemTime(1_700_000_000_000 + 10 * INFO_FRESH_MS);

    await expect(refresher.freshServerInfo()).resolves.toMatchObject({ serverName: 'Home' });
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(2);
  });

  it('concurrent callers share one media call', async () => {
    const { refresher, media } = harness();
    let release!: () => void;
    media.protocolServerInfo.mockImplementation(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { serverName: 'Shared', productName: 'P' };
    });
    const answers = [refresher.freshServerInfo(), refresher.freshServerInfo()];
    release();
    const [a, b] = await Promise.all(answers);
    expect(a!.serverName).toBe('Shared');
    expect(b!.serverName).toBe('Shared');
    expect(media.protocolServerInfo).toHaveBeenCalledTimes(1);
  });
});
