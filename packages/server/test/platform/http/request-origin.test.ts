import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientIpResolver } from '../../../src/platform/http/client-ip.js';
import { entranceHostOf, hostnameOf } from '../../../src/platform/http/request-origin.js';

const PROXY = '192.0.2.10';

describe('entranceHostOf: the host a client reached the public entrance with', () => {
  const proxies = new ClientIpResolver([PROXY]);
  const app = Fastify();
  // Stands in for the route auth, which sets fromService when the service token is valid.
  app.addHook('onRequest', async (request) => {
    request.fromService = request.headers['x-test-from-service'] === 'yes';
  });
  app.get('/host', async (request) => entranceHostOf(request, proxies) ?? 'none');
  beforeAll(() => app.ready());
  afterAll(() => app.close());
  const hostOf = async (remoteAddress: string, headers: Record<string, string>) =>
    (await app.inject({ method: 'GET', url: '/host', remoteAddress, headers })).body;

  it('believes X-Forwarded-Host of a trusted proxy only', async () => {
    const headers = { host: '10.0.0.5:18080', 'x-forwarded-host': 'Media.Example.test' };
    expect(await hostOf(PROXY, headers)).toBe('media.example.test');
    expect(await hostOf('203.0.113.9', headers)).toBe('10.0.0.5:18080');
  });

  it('takes the entrance host a service hop passed on, and only from a service', async () => {
    const passedOn = { host: '127.0.0.1:18086', 'x-svc-entrance-host': 'media.example.test:18080' };
    expect(await hostOf('127.0.0.1', { ...passedOn, 'x-test-from-service': 'yes' })).toBe(
      'media.example.test:18080',
    );
    expect(await hostOf('127.0.0.1', passedOn)).toBe('127.0.0.1:18086');
    // A service hop that passed on nothing usable names no host.
    expect(
      await hostOf('127.0.0.1', {
        host: '127.0.0.1:18086',
        'x-svc-entrance-host': 'a b',
        'x-test-from-service': 'yes',
      }),
    ).toBe('none');
  });

  it('drops the port of a host', () => {
    expect(hostnameOf('media.example.test:18080')).toBe('media.example.test');
    expect(hostnameOf('[::1]:18080')).toBe('[::1]');
    expect(hostnameOf('[::1]')).toBe('[::1]');
    expect(hostnameOf('10.0.0.5')).toBe('10.0.0.5');
  });
});
