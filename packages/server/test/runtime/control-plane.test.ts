import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { ComponentFactory } from '../../src/runtime/component.js';
import { createConfigComponent } from '../../src/services/config/config.component.js';
import { createUserComponent } from '../../src/services/user/user.component.js';
import { createMediaComponent } from '../../src/services/media/media.component.js';
import { gatewayFactory } from '../../src/services/gateway/gateway.component.js';
import { GATEWAY_ROUTE_TABLE, type GatewayRouteEntry } from '../../src/services/gateway/route-table.js';
import { createFrontendComponent } from '../../src/services/frontend/frontend.component.js';
import { createInternalComponent } from '../../src/services/internal/internal.component.js';
import { createStorageComponent } from '../../src/services/storage/storage.component.js';
import { createPlayAgentComponent } from '../../src/services/play-agent/play-agent.component.js';
import { installBackends } from '../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../support/runtime.js';

/** Adds a route to a component before it starts listening, to see which service answered. */
function withRoutes(
  factory: ComponentFactory,
  add: (app: Awaited<ReturnType<ComponentFactory>>['app']) => void,
): ComponentFactory {
  return async (context) => {
    const component = await factory(context);
    add(component.app);
    return component;
  };
}

// Probe routes this suite adds: declared here, for the test only (services refuse undeclared routes).
const PUBLIC = { config: { auth: { gateway: { kind: 'public' } }, endpoint: 'test.probe' } } as const;

const whoAmI = (name: string) => (app: Awaited<ReturnType<ComponentFactory>>['app']) => {
  app.get(`/api/${name}/whoami`, PUBLIC, async (req) => ({
    service: name,
    forwardedFor: req.headers['x-forwarded-for'] ?? null,
    storageNode: req.headers['x-storage-node-id'] ?? null,
    fromGateway: req.fromService,
    clientIp: req.clientIp,
    identity: req.headers['x-svc-identity'] ?? null,
  }));
};

/** The production table plus the probe routes this suite adds to the services. */
const testTable: GatewayRouteEntry[] = [
  ...GATEWAY_ROUTE_TABLE,
  { methods: ['GET'], path: '/api/auth/whoami', rule: { kind: 'public' } },
  { methods: ['GET'], path: '/api/media/whoami', rule: { kind: 'public' } },
  { methods: ['GET'], path: '/api/storage/whoami', rule: { kind: 'public' } },
  { methods: ['POST'], path: '/api/media/sink', rule: { kind: 'public' } },
  { methods: ['GET'], path: '/api/storage/test-events', rule: { kind: 'public' } },
];

describe.each(installBackends())('control plane through the console entrance on $label', (backend) => {
  let install: TestInstall;

  beforeAll(async () => {
    install = await startTestInstall(
      [
        createConfigComponent,
        withRoutes(createUserComponent, whoAmI('auth')),
        withRoutes(createMediaComponent, (app) => {
          whoAmI('media')(app);
          app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
          app.post('/api/media/sink', PUBLIC, async (req) => {
            let bytes = 0;
            for await (const chunk of req.body as AsyncIterable<Buffer>) bytes += chunk.length;
            return { bytes };
          });
        }),
        withRoutes(createStorageComponent, (app) => {
          whoAmI('storage')(app);
          app.get('/api/storage/test-events', PUBLIC, (_req, reply) => {
            reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
            let sent = 0;
            const timer = setInterval(() => {
              sent += 1;
              reply.raw.write(`data: {"step":${sent},"at":${Date.now()}}\n\n`);
              if (sent === 3) {
                clearInterval(timer);
                reply.raw.end();
              }
            }, 400);
            return reply;
          });
        }),
        createPlayAgentComponent,
        gatewayFactory(testTable),
        createFrontendComponent,
        createInternalComponent,
      ],
      backend.env,
    );
    // Services register asynchronously; the gateway can route to each once the registry knows it.
    for (const service of ['auth', 'media', 'storage']) {
      await waitFor(async () => {
        const response = await request(`${install.url('frontend')}/api/${service}/whoami`);
        const body = await response.body.text();
        return response.statusCode === 200 ? body : undefined;
      });
    }
  });

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
  });

  it('answers the licence status before any licence exists', async () => {
    const response = await request(`${install.url('frontend')}/api/license/status`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toMatchObject({
      status: 'NONE',
      activated: false,
      edition: 'STANDALONE',
    });
  });

  it('reports edition and deployment mode', async () => {
    const response = await request(`${install.url('frontend')}/api/config/deployment/capabilities`);
    expect(await response.body.json()).toMatchObject({ edition: 'STANDALONE', deploymentMode: 'standalone' });
  });

  it('answers a health route on every listener', async () => {
    const { ports } = install.context.settings;
    const paths: [number, string][] = [
      [ports.frontend, '/health'],
      [ports.gateway, '/health'],
      [ports.user, '/health'],
      [ports.media, '/health'],
      [ports.config, '/actuator/health'],
      [ports.internal, '/health'],
      [ports.storage, '/api/storage/ping'],
      [ports.playAgent, '/health'],
    ];
    for (const [port, path] of paths) {
      const response = await request(`http://127.0.0.1:${port}${path}`);
      expect(response.statusCode, `${port}${path}`).toBe(200);
      expect(await response.body.json()).toMatchObject({ status: 'UP' });
    }
  });

  it('routes each prefix to its service', async () => {
    for (const [path, service] of [
      ['/api/auth/whoami', 'auth'],
      ['/api/media/whoami', 'media'],
      ['/api/storage/whoami', 'storage'],
    ] as const) {
      const response = await request(`${install.url('frontend')}${path}`);
      expect(response.statusCode, path).toBe(200);
      expect(await response.body.json()).toMatchObject({ service });
    }
  });

  it('fixes the storage node to the built-in one and passes the client address on', async () => {
    const response = await request(`${install.url('frontend')}/api/storage/whoami`, {
      headers: { 'x-storage-node-id': 'node-somewhere-else' },
    });
    const body = (await response.body.json()) as { storageNode: string; forwardedFor: string };
    expect(body.storageNode).toBe('node-local-storage');
    expect(body.forwardedFor).toContain('127.0.0.1');
  });

  it('speaks for the caller only through the gateway: forged internal headers are dropped', async () => {
    const response = await request(`${install.url('frontend')}/api/auth/whoami`, {
      headers: {
        'x-svc-service-token': 'forged',
        'x-svc-identity': Buffer.from(JSON.stringify({ userId: 'x', role: 'admin' })).toString('base64url'),
        'x-svc-client-ip': '203.0.113.9',
        'x-forwarded-for': '198.51.100.7',
      },
    });
    const body = (await response.body.json()) as {
      fromGateway: boolean;
      identity: unknown;
      clientIp: string;
    };
    expect(body.fromGateway).toBe(true);
    expect(body.identity).toBeNull();
    // The test client connects from loopback, a trusted proxy, so its X-Forwarded-For is believed,
    // but the forged X-SVC-Client-Ip is not.
    expect(body.clientIp).toBe('198.51.100.7');
  });

  it('refuses service-only routes at the public entrance and direct calls without the service token', async () => {
    const viaEntrance = await request(`${install.url('frontend')}/api/config/registry/instances`, {
      headers: { 'x-svc-service-token': install.context.serviceToken },
    });
    expect(viaEntrance.statusCode).toBe(404);
    await viaEntrance.body.dump();
    const direct = await request(`${install.url('config')}/api/config/registry/instances`);
    expect(direct.statusCode).toBe(401);
    await direct.body.dump();
    const wrong = await request(`${install.url('config')}/api/config/registry/instances`, {
      headers: { 'x-svc-service-token': 'not-the-token' },
    });
    expect(wrong.statusCode).toBe(403);
    await wrong.body.dump();
    const directUser = await request(`${install.url('user')}/api/auth/whoami`);
    expect(directUser.statusCode).toBe(401);
    await directUser.body.dump();
  });

  it('asks for sign-in on console routes without a token, and refuses an unknown token', async () => {
    const none = await request(`${install.url('frontend')}/api/auth/admin/users`);
    expect(none.statusCode).toBe(401);
    expect(await none.body.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const forged = await request(`${install.url('frontend')}/api/auth/admin/users`, {
      headers: { 'x-admin-token': 'svc_adm_forged' },
    });
    expect(forged.statusCode).toBe(401);
    await forged.body.dump();
  });

  it('answers unknown API paths with the error body', async () => {
    const response = await request(`${install.url('frontend')}/api/nothing-here`);
    expect(response.statusCode).toBe(404);
    expect(await response.body.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('streams server-sent events chunk by chunk with buffering disabled', async () => {
    const response = await request(`${install.url('frontend')}/api/storage/test-events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-accel-buffering']).toBe('no');
    const arrivals: { step: number; sentAt: number; receivedAt: number }[] = [];
    for await (const chunk of response.body) {
      for (const match of (chunk as Buffer).toString().matchAll(/data: (\{.*?\})/g)) {
        const event = JSON.parse(match[1] ?? '') as { step: number; at: number };
        arrivals.push({ step: event.step, sentAt: event.at, receivedAt: Date.now() });
      }
    }
    expect(arrivals.map((arrival) => arrival.step)).toEqual([1, 2, 3]);
    // The first event arrived long before the stream ended: nothing buffered it.
    expect(arrivals[0]!.receivedAt).toBeLessThan(arrivals[2]!.sentAt);
  });

  it('streams request bodies up to 20 MB and refuses larger ones with 413', async () => {
    const small = Buffer.alloc(19 * 1024 * 1024, 1);
    const ok = await request(`${install.url('frontend')}/api/media/sink`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: small,
    });
    expect(ok.statusCode).toBe(200);
    expect(await ok.body.json()).toEqual({ bytes: small.length });

    const declared = await request(`${install.url('frontend')}/api/media/sink`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(21 * 1024 * 1024, 1),
    });
    expect(declared.statusCode).toBe(413);
    expect(await declared.body.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });

    // Without a Content-Length the limit is enforced while streaming.
    const chunks = () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < 22; i++) yield Buffer.alloc(1024 * 1024, 2);
        })(),
      );
    const streamed = await request(`${install.url('frontend')}/api/media/sink`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: chunks(),
    });
    expect(streamed.statusCode).toBe(413);
    await streamed.body.dump();
  });

  it('tells other services which nodes exist, starting with the built-in ones', async () => {
    const response = await request(
      `${install.url('config')}/api/config/internal/nodes?ids=node-local-storage,node-local-play-agent,node-missing`,
      { headers: { 'x-svc-service-token': install.context.serviceToken } },
    );
    const body = (await response.body.json()) as { nodes: { nodeId: string; serviceType: string }[] };
    expect(body.nodes.sort((a, b) => a.nodeId.localeCompare(b.nodeId))).toEqual([
      expect.objectContaining({
        nodeId: 'node-local-play-agent',
        serviceType: 'svc-play-agent',
        scope: 'EMBEDDED',
      }),
      expect.objectContaining({
        nodeId: 'node-local-storage',
        serviceType: 'svc-control-storage',
        scope: 'EMBEDDED',
      }),
    ]);
  });

  it('lists the scheduled tasks on the internal port', async () => {
    const serviceToken = { 'x-svc-service-token': install.context.serviceToken };
    const refused = await request(`${install.url('internal')}/internal/tasks`);
    await refused.body.dump();
    expect(refused.statusCode).toBe(401);
    const response = await request(`${install.url('internal')}/internal/tasks`, { headers: serviceToken });
    const body = (await response.body.json()) as { tasks: { name: string }[] };
    expect(body.tasks.map((task) => task.name)).toContain('registry.prune');
    const run = await request(`${install.url('internal')}/internal/tasks/registry.prune/run`, {
      method: 'POST',
      headers: serviceToken,
    });
    expect(await run.body.json()).toEqual({ result: 'ran' });
  });
});
