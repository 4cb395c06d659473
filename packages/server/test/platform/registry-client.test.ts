import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/platform/registry-client.js';

/** A registry that lists the media service only once `registered` is set, and counts the lookups. */
let server: Server;
let registered = false;
let lookups = 0;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    lookups += 1;
    const instances = registered
      ? [
          {
            service: 'svc-media',
            instanceId: 'media-1',
            nodeId: null,
            baseUrl: 'http://127.0.0.1:18083',
            registeredAt: new Date().toISOString(),
            lastSeenAt: new Date().toISOString(),
          },
        ]
      : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ instances }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('registry lookups', () => {
  it('asks again after a miss, and reuses a found service for the cache time', async () => {
    const client = new RegistryClient({
      configBaseUrl: baseUrl,
      serviceToken: 'token',
      logger: pino({ level: 'silent' }),
      cacheMs: 60_000,
    });
    expect(await client.lookup('svc-media')).toEqual([]);
    registered = true;
    // Registered a moment later: the next lookup finds it instead of the kept miss.
    expect((await client.lookup('svc-media')).map((instance) => instance.instanceId)).toEqual(['media-1']);
    const asked = lookups;
    expect(await client.lookup('svc-media')).toHaveLength(1);
    expect(lookups).toBe(asked);
    client.close();
  });
});
