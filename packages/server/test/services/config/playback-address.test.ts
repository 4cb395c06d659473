import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeView, PlaybackRoute, PlaybackRoutesResponse } from '@svc/contracts';
import { createConfigComponent } from '../../../src/services/config/config.component.js';
import { createUserComponent } from '../../../src/services/user/user.component.js';
import { createMediaComponent } from '../../../src/services/media/media.component.js';
import { createGatewayComponent } from '../../../src/services/gateway/gateway.component.js';
import { createFrontendComponent } from '../../../src/services/frontend/frontend.component.js';
import { createPlayAgentComponent } from '../../../src/services/play-agent/play-agent.component.js';
import { IDENTITY_HEADER, encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { SERVICE_TOKEN_HEADER } from '../../../src/platform/service-token.js';
import { installBackends } from '../../support/install-backends.js';
import { call, type Answer } from '../../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

const BUILT_IN = 'node-local-play-agent';

/**
 * A fresh standalone install whose built-in play-agent listens on a port other than 19090 (the test ports
 * move it): the portal's playback routes hand out its direct address right away, the node detail shows
 * the port it really listens on, and the external address an administrator sets takes over.
 */
describe.each(installBackends())('the playback address of a fresh install on $label', (backend) => {
  let install: TestInstall;
  let entrance: string;
  let playAgent: string;
  let port: number;
  let adminToken: string;
  let viewerToken: string;
  let viewerId: string;

  const admin = <T>(method: string, route: string, body?: unknown) =>
    call<T>(entrance, method, route, { headers: { 'x-admin-token': adminToken }, body });
  const builtInRoute = async (headers: Record<string, string> = {}): Promise<PlaybackRoute | undefined> => {
    const answer: Answer<PlaybackRoutesResponse> = await call(
      entrance,
      'GET',
      '/api/config/me/playback-routes',
      {
        headers: { authorization: `Bearer ${viewerToken}`, ...headers },
      },
    );
    expect(answer.status).toBe(200);
    return answer.body.routes.find((route) => route.id === BUILT_IN);
  };
  const localAddress = async (headers: Record<string, string> = {}) => {
    const answer = await call<{ LocalAddress: string }>(playAgent, 'GET', '/System/Info/Public', { headers });
    expect(answer.status).toBe(200);
    return answer.body.LocalAddress;
  };

  beforeAll(async () => {
    install = await startTestInstall(
      [
        createConfigComponent,
        createUserComponent,
        createMediaComponent,
        createGatewayComponent,
        createFrontendComponent,
        createPlayAgentComponent,
      ],
      backend.env,
      // The installer's public host: used only when a request names no host.
      { env: { SVC_PUBLIC_HOST: 'svc.example.test:18080' } },
    );
    entrance = install.url('frontend');
    port = install.context.settings.playAgent.listenPort;
    playAgent = `http://127.0.0.1:${port}`;
    await waitFor(async () =>
      (await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
    );
    const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'root', password: 'root-password-1' },
    });
    expect(setup.status).toBe(201);
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    adminToken = String(login.body.adminToken);
    const created = await admin<{ id: string }>('POST', '/api/auth/admin/users', {
      username: 'viewer',
      password: 'viewer-password-1',
    });
    expect(created.status).toBe(201);
    viewerId = created.body.id;
    const viewer = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'viewer', password: 'viewer-password-1', client: 'portal' },
    });
    viewerToken = String(viewer.body.accessToken);
    // The built-in play-agent's first heartbeat makes it ONLINE.
    await waitFor(async () => ((await builtInRoute())?.health === 'online' ? true : undefined), 30_000);
  }, 120_000);

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
  });

  it('hands out the direct address at the host the portal was reached with and the real port', async () => {
    expect(port).not.toBe(19090);
    expect(await builtInRoute()).toEqual({
      kind: 'node',
      id: BUILT_IN,
      name: 'Built-in play-agent',
      url: `http://127.0.0.1:${port}`,
      source: 'direct-address',
      health: 'online',
    });
    // Behind a trusted proxy (loopback is trusted by default) the host the browser used counts.
    expect(await builtInRoute({ 'x-forwarded-host': 'media.example.test:8443' })).toMatchObject({
      url: `http://media.example.test:${port}`,
      source: 'direct-address',
    });
    // A client cannot smuggle the internal header past the entrance.
    expect(await builtInRoute({ 'x-svc-entrance-host': 'evil.example.test' })).toMatchObject({
      url: `http://127.0.0.1:${port}`,
    });
  });

  it('falls back to SVC_PUBLIC_HOST when the request names no entrance host', async () => {
    // A service's own call to the config service (no entrance in between) carries no entrance host.
    const identity = encodeIdentity({
      userId: viewerId,
      username: 'viewer',
      role: 'user',
      permissions: [],
      tokenKind: 'access',
      tokenId: 'direct-call',
      clientIp: '127.0.0.1',
    });
    const answer = await call<PlaybackRoutesResponse>(
      install.url('config'),
      'GET',
      '/api/config/me/playback-routes',
      { headers: { [SERVICE_TOKEN_HEADER]: install.context.serviceToken, [IDENTITY_HEADER]: identity } },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.routes.find((route) => route.id === BUILT_IN)).toMatchObject({
      url: `http://svc.example.test:${port}`,
      source: 'direct-address',
    });
  });

  it('shows the port the built-in play-agent really listens on in the node detail', async () => {
    const detail = await admin<NodeView>('GET', `/api/config/nodes/${BUILT_IN}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ listenPort: port, status: 'ONLINE' });
  });

  it('takes scheme and host of LocalAddress from a trusted proxy', async () => {
    expect(await localAddress()).toBe(`http://127.0.0.1:${port}`);
    expect(
      await localAddress({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'play.example.test' }),
    ).toBe('https://play.example.test');
  });

  it('lets the external address the administrator sets replace the direct one, in the portal and in LocalAddress', async () => {
    const set = await admin<NodeView>('PATCH', `/api/config/nodes/${BUILT_IN}`, {
      externalAddress: { protocol: 'https', host: 'play.example.test' },
    });
    expect(set.status).toBe(200);
    expect(await builtInRoute()).toMatchObject({
      url: 'https://play.example.test',
      source: 'external-address',
    });
    // The play-agent has no public_base_url: it looks its address up from the config service.
    await waitFor(
      async () => ((await localAddress()) === 'https://play.example.test' ? true : undefined),
      40_000,
    );

    expect((await admin('PATCH', `/api/config/nodes/${BUILT_IN}`, { externalAddress: null })).status).toBe(
      200,
    );
    expect(await builtInRoute()).toMatchObject({ url: `http://127.0.0.1:${port}`, source: 'direct-address' });
    await waitFor(
      async () => ((await localAddress()) === `http://127.0.0.1:${port}` ? true : undefined),
      40_000,
    );
  }, 100_000);
});
