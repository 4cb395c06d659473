import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NodePublicAddressResponse } from '@svc/contracts';
import { ClientIpResolver } from '../../../src/platform/http/client-ip.js';
import { createLogger } from '../../../src/platform/logger.js';
import { LocalAddress } from '../../../src/services/play-agent/proto-a/local-address.js';
import { PublicAddressLookup } from '../../../src/services/play-agent/upstream/public-address-lookup.js';

const PROXY = '192.0.2.10';
const STRANGER = '203.0.113.9';

/** A listener answering LocalAddress.of(request), trusting PROXY only (SVC_TRUSTED_PROXIES=192.0.2.10). */
function appWith(deps: { publicBaseUrl?: string; lookedUp?: string }): FastifyInstance {
  const local = new LocalAddress({
    publicBaseUrl: deps.publicBaseUrl,
    lookedUp: () => deps.lookedUp,
    proxies: new ClientIpResolver([PROXY]),
  });
  const app = Fastify();
  app.get('/address', async (request) => local.of(request));
  return app;
}

const forwarded = {
  host: '10.0.0.5:19090',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'play.example.test',
};

describe('LocalAddress of System/Info', () => {
  const app = appWith({});
  beforeAll(() => app.ready());
  afterAll(() => app.close());
  const address = async (remoteAddress: string, headers: Record<string, string>) =>
    (await app.inject({ method: 'GET', url: '/address', remoteAddress, headers })).body;

  it('takes scheme and host from X-Forwarded-Proto / X-Forwarded-Host of a trusted proxy', async () => {
    expect(await address(PROXY, forwarded)).toBe('https://play.example.test');
    // Proxies in a row make lists: the first entry is what the client used.
    expect(
      await address(PROXY, {
        host: '10.0.0.5:19090',
        'x-forwarded-proto': 'https, http',
        'x-forwarded-host': 'play.example.test:8443, inner.example.test',
      }),
    ).toBe('https://play.example.test:8443');
    // A proxy that names only the scheme keeps the Host it passed on.
    expect(await address(PROXY, { host: 'play.example.test', 'x-forwarded-proto': 'https' })).toBe(
      'https://play.example.test',
    );
  });

  it('ignores the forwarded headers of a peer that is not a trusted proxy', async () => {
    expect(await address(STRANGER, forwarded)).toBe('http://10.0.0.5:19090');
  });

  it('does not repeat a forwarded value that is no host or scheme', async () => {
    expect(
      await address(PROXY, {
        host: '10.0.0.5:19090',
        'x-forwarded-proto': 'gopher',
        'x-forwarded-host': 'evil.example/<script>',
      }),
    ).toBe('http://10.0.0.5:19090');
  });

  it('answers public_base_url, else the looked-up address, before anything the request says', async () => {
    const both = appWith({
      publicBaseUrl: 'https://own.example.test/',
      lookedUp: 'https://record.example.test',
    });
    const lookedUp = appWith({ lookedUp: 'https://record.example.test' });
    for (const [instance, expected] of [
      [both, 'https://own.example.test'],
      [lookedUp, 'https://record.example.test'],
    ] as const) {
      const answer = await instance.inject({
        method: 'GET',
        url: '/address',
        remoteAddress: PROXY,
        headers: forwarded,
      });
      expect(answer.body).toBe(expected);
      await instance.close();
    }
  });
});

describe('PublicAddressLookup', () => {
  const logger = createLogger({ level: 'silent', component: 'test' });

  it('keeps the config service’s answer, keeps it through a failure and forgets a removed address', async () => {
    const answers: (NodePublicAddressResponse | Error)[] = [
      { nodeId: 'node-a', publicBaseUrl: 'https://play.example.test/' },
      new Error('config service down'),
      { nodeId: 'node-a', publicBaseUrl: null },
    ];
    const config = {
      publicAddress: vi.fn(async (nodeId: string) => {
        expect(nodeId).toBe('node-a');
        const next = answers.shift()!;
        if (next instanceof Error) throw next;
        return next;
      }),
    };
    const lookup = new PublicAddressLookup({ config, nodeId: 'node-a', logger });
    expect(lookup.current()).toBeUndefined();
    await lookup.refresh();
    expect(lookup.current()).toBe('https://play.example.test');
    await lookup.refresh();
    expect(lookup.current()).toBe('https://play.example.test');
    await lookup.refresh();
    expect(lookup.current()).toBeUndefined();
    expect(config.publicAddress).toHaveBeenCalledTimes(3);
  });
});
