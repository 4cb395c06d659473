import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_PERMISSIONS,
  DEFAULT_PLAY_AGENT_POLICY,
  REGISTRY_TOKEN_HEADER,
  type Identity,
} from '@svc/contracts';
import type { Clock } from '../../../src/platform/cache/index.js';
import { createLogger } from '../../../src/platform/logger.js';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { RegistryClient } from '../../../src/platform/registry-client.js';
import { configComponentFactory, type ConfigParts } from '../../../src/services/config/config.component.js';
import {
  createManualEndpoint,
  regenerateEndpointToken,
} from '../../../src/services/config/nodes/manual-endpoints.repository.js';
import { createUserComponent } from '../../../src/services/user/user.component.js';
import { createGatewayComponent } from '../../../src/services/gateway/gateway.component.js';
import { createFrontendComponent } from '../../../src/services/frontend/frontend.component.js';
import { injectJson } from '../../support/inject.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

class ManualClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** The answer as the tests compare it whole: without the headers. */
const statusAndBody = <T>({ status, body }: Answer<T>): Answer<T> => ({ status, body });

interface DirectoryNode {
  nodeId: string;
  serviceType: string;
  status: 'PENDING' | 'ONLINE' | 'offline';
  lastHeartbeatAt: string | null;
  disabled: boolean;
}

const MISMATCH = 'registry token does not match service instance';
const ADMIN = { username: 'root', password: 'correct horse battery' };
const PASSWORD = 'long enough password';

describe.each(installBackends())(
  'config service: registry tokens, endpoints, policy on $label',
  (backend) => {
    let install: TestInstall;
    let parts: ConfigParts;
    const clock = new ManualClock(Date.now());
    const logger = createLogger({ level: 'silent', component: 'test' });

    /** Calls the config service directly, in-process (as a node, a service, or the gateway with an identity would). */
    const config = async <T = unknown>(
      method: string,
      path: string,
      options: { body?: unknown; headers?: Record<string, string>; identity?: Identity } = {},
    ): Promise<Answer<T>> => {
      const headers: Record<string, string> = { ...options.headers };
      if (options.identity) {
        headers['x-svc-service-token'] = install.context.serviceToken;
        headers['x-svc-identity'] = encodeIdentity(options.identity);
      }
      return statusAndBody(
        await injectJson<T>(install, 'config', { method, url: path, headers, body: options.body }),
      );
    };
    const asService = () => ({ 'x-svc-service-token': install.context.serviceToken });

    /** Calls through the console entrance (frontend → gateway → service). */
    const entrance = async <T = unknown>(
      method: string,
      path: string,
      options: { body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer<T>> =>
      statusAndBody(await injectJson<T>(install, 'frontend', { method, url: path, ...options }));

    const node = async (nodeId: string): Promise<DirectoryNode | undefined> => {
      const answer = await config<{ nodes: DirectoryNode[] }>(
        'GET',
        `/api/config/internal/nodes?ids=${nodeId}`,
        {
          headers: asService(),
        },
      );
      expect(answer.status).toBe(200);
      return answer.body.nodes[0];
    };

    const heartbeat = (
      headers: Record<string, string>,
      body: { service: string; nodeId: string | null; instanceId?: string },
    ) =>
      config('POST', '/api/config/registry/instances', {
        headers,
        body: {
          instanceId: body.instanceId ?? `${body.service}@${body.nodeId ?? 'control'}`,
          baseUrl: 'http://127.0.0.1:19999',
          service: body.service,
          nodeId: body.nodeId,
        },
      });

    const registeredInstances = async (nodeId: string) =>
      (
        await config<{ instances: { instanceId: string }[] }>(
          'GET',
          `/api/config/registry/instances?nodeId=${nodeId}`,
          { headers: asService() },
        )
      ).body.instances;

    beforeAll(async () => {
      install = await startTestInstall(
        [
          configComponentFactory({ expose: (exposed) => (parts = exposed) }),
          createUserComponent,
          createGatewayComponent,
          createFrontendComponent,
        ],
        backend.env,
        { clock },
      );
      // A second play-agent and a storage node, as node management will create them.
      await parts.nodes.ensure({
        nodeId: 'node-player-two',
        serviceType: 'svc-play-agent',
        name: 'Second play-agent',
        scope: 'EXTERNAL',
      });
      await parts.nodes.ensure({
        nodeId: 'node-storage-two',
        serviceType: 'svc-control-storage',
        name: 'Second storage',
        scope: 'EXTERNAL',
      });
    });

    afterAll(async () => {
      await install?.stop();
      await backend.cleanup();
    });

    describe('node records', () => {
      it('gives the built-in nodes a node token and a registry token, and they start PENDING', async () => {
        for (const nodeId of ['node-local-storage', 'node-local-play-agent']) {
          const tokens = await parts.nodes.tokens(nodeId);
          expect(tokens?.nodeToken).toMatch(/^svc_nt_[A-Za-z0-9_-]{43}$/);
          expect(tokens?.registryToken).toMatch(/^svc_rt_[A-Za-z0-9_-]{43}$/);
          expect(tokens?.endpointToken).toBeNull();
          expect(await node(nodeId)).toMatchObject({
            status: 'PENDING',
            lastHeartbeatAt: null,
            disabled: false,
          });
        }
        const storage = await parts.nodes.tokens('node-local-storage');
        const player = await parts.nodes.tokens('node-local-play-agent');
        expect(storage?.registryToken).not.toBe(player?.registryToken);
      });

      it('keeps the tokens when the built-in nodes are ensured again (every start)', async () => {
        const before = await parts.nodes.tokens('node-local-play-agent');
        await parts.nodes.ensure({
          nodeId: 'node-local-play-agent',
          serviceType: 'svc-play-agent',
          name: 'Built-in play-agent',
          scope: 'EMBEDDED',
        });
        expect(await parts.nodes.tokens('node-local-play-agent')).toEqual(before);
      });
    });

    describe('registration heartbeat', () => {
      it('takes the global service token in X-SVC-Service-Token, and marks the named node ONLINE', async () => {
        const answer = await heartbeat(asService(), {
          service: 'svc-control-storage',
          nodeId: 'node-local-storage',
        });
        expect(answer.status).toBe(204);
        expect(await node('node-local-storage')).toMatchObject({
          status: 'ONLINE',
          lastHeartbeatAt: new Date(clock.now()).toISOString(),
        });
        // Control components register without a node.
        expect((await heartbeat(asService(), { service: 'svc-media', nodeId: null })).status).toBe(204);
      });

      it('takes the global service token as registry token', async () => {
        const answer = await heartbeat(
          { [REGISTRY_TOKEN_HEADER]: install.context.serviceToken },
          { service: 'svc-control-storage', nodeId: 'node-storage-two' },
        );
        expect(answer.status).toBe(204);
        expect((await node('node-storage-two'))?.status).toBe('ONLINE');
      });

      it("refuses a wrong registry token with 403 and the spec's message; the node stays PENDING", async () => {
        const player = await parts.nodes.tokens('node-player-two');
        const storage = await parts.nodes.tokens('node-storage-two');
        const local = await parts.nodes.tokens('node-local-play-agent');
        const wrong: [string, Record<string, string>, string | null, string][] = [
          [
            'an unknown token',
            { [REGISTRY_TOKEN_HEADER]: 'svc_rt_not-the-token' },
            'node-player-two',
            'svc-play-agent',
          ],
          [
            'another node’s token',
            { [REGISTRY_TOKEN_HEADER]: local!.registryToken! },
            'node-player-two',
            'svc-play-agent',
          ],
          // The node's own token, but registering another kind of service under its id.
          [
            'its token for another service',
            { [REGISTRY_TOKEN_HEADER]: player!.registryToken! },
            'node-player-two',
            'svc-control-storage',
          ],
          [
            'a storage token for a play-agent',
            { [REGISTRY_TOKEN_HEADER]: storage!.registryToken! },
            'node-storage-two',
            'svc-play-agent',
          ],
          [
            'a node token without a node',
            { [REGISTRY_TOKEN_HEADER]: player!.registryToken! },
            null,
            'svc-play-agent',
          ],
          [
            'the node token instead of the registry token',
            { [REGISTRY_TOKEN_HEADER]: player!.nodeToken! },
            'node-player-two',
            'svc-play-agent',
          ],
          // A registry token decides on its own: a valid service token next to it does not help.
          [
            'a wrong registry token next to the service token',
            { [REGISTRY_TOKEN_HEADER]: 'svc_rt_wrong', ...asService() },
            'node-player-two',
            'svc-play-agent',
          ],
          [
            'a wrong service token',
            { 'x-svc-service-token': 'svc_st_wrong' },
            'node-player-two',
            'svc-play-agent',
          ],
        ];
        for (const [label, headers, nodeId, service] of wrong) {
          const answer = await heartbeat(headers, { service, nodeId, instanceId: `probe-${label}` });
          expect(answer.status, label).toBe(403);
          expect(answer.body, label).toEqual({ error: { code: 'FORBIDDEN', message: MISMATCH } });
        }
        expect(await node('node-player-two')).toMatchObject({ status: 'PENDING', lastHeartbeatAt: null });
        // Nothing was registered either.
        expect(await registeredInstances('node-player-two')).toEqual([]);
      });

      it('answers 401 without any token, before looking at the body', async () => {
        for (const body of [
          { service: 'svc-play-agent', nodeId: 'node-player-two' },
          { service: 'not-a-service', nodeId: 'node-player-two' },
        ]) {
          const answer = await heartbeat({}, body);
          expect(answer.status).toBe(401);
          expect(answer.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
        }
        expect((await node('node-player-two'))?.status).toBe('PENDING');
      });

      it("takes the node's own registry token: PENDING → ONLINE with its last heartbeat", async () => {
        const { registryToken } = (await parts.nodes.tokens('node-player-two'))!;
        clock.advance(1_000);
        const answer = await heartbeat(
          { [REGISTRY_TOKEN_HEADER]: registryToken! },
          { service: 'svc-play-agent', nodeId: 'node-player-two' },
        );
        expect(answer.status).toBe(204);
        expect(await node('node-player-two')).toMatchObject({
          status: 'ONLINE',
          lastHeartbeatAt: new Date(clock.now()).toISOString(),
        });
        expect((await registeredInstances('node-player-two')).map((i) => i.instanceId)).toEqual([
          'svc-play-agent@node-player-two',
        ]);
      });

      it('reads a node as offline once its heartbeats stopped for more than 30 s, and ONLINE again after one', async () => {
        const { registryToken } = (await parts.nodes.tokens('node-player-two'))!;
        await heartbeat(
          { [REGISTRY_TOKEN_HEADER]: registryToken! },
          { service: 'svc-play-agent', nodeId: 'node-player-two' },
        );
        const beatAt = new Date(clock.now()).toISOString();
        clock.advance(30_000);
        expect((await node('node-player-two'))?.status).toBe('ONLINE');
        clock.advance(1);
        expect(await node('node-player-two')).toMatchObject({ status: 'offline', lastHeartbeatAt: beatAt });
        // A node that never sent a heartbeat is PENDING, not offline.
        expect((await node('node-local-play-agent'))?.status).toBe('PENDING');
        await heartbeat(
          { [REGISTRY_TOKEN_HEADER]: registryToken! },
          { service: 'svc-play-agent', nodeId: 'node-player-two' },
        );
        expect(await node('node-player-two')).toMatchObject({
          status: 'ONLINE',
          lastHeartbeatAt: new Date(clock.now()).toISOString(),
        });
      });

      it('RegistryClient sends the registry token alone in X-SVC-Registry-Token', async () => {
        const { registryToken } = (await parts.nodes.tokens('node-local-play-agent'))!;
        const instance = {
          service: 'svc-play-agent' as const,
          instanceId: 'svc-play-agent@built-in',
          nodeId: 'node-local-play-agent',
          baseUrl: 'http://127.0.0.1:19090',
        };
        // The right service token does not rescue a wrong registry token: the client sends only the latter.
        const misconfigured = new RegistryClient({
          configBaseUrl: install.url('config'),
          serviceToken: install.context.serviceToken,
          registryToken: 'svc_rt_wrong',
          logger,
        });
        await expect(misconfigured.register(instance)).rejects.toThrow(/403.*registry token does not match/);
        expect((await node('node-local-play-agent'))?.status).toBe('PENDING');

        // Per call, the argument wins over the option; keepRegistered passes it on to every beat.
        const client = new RegistryClient({
          configBaseUrl: install.url('config'),
          serviceToken: 'svc_st_not-the-service-token',
          registryToken: 'svc_rt_wrong',
          logger,
        });
        try {
          client.keepRegistered(instance, 10_000, { registryToken: registryToken! });
          await waitFor(async () =>
            (await node('node-local-play-agent'))?.status === 'ONLINE' ? true : undefined,
          );
        } finally {
          client.close();
        }
      });
    });

    describe('manual reverse-proxy addresses', () => {
      const resolve = (token: string) =>
        config<{ found: boolean; nodeId?: string; disabled?: boolean }>(
          'POST',
          '/api/config/internal/endpoints/resolve',
          {
            headers: asService(),
            body: { token },
          },
        );

      it('resolves an endpoint token to its address, and an unknown token to found:false', async () => {
        const address = await createManualEndpoint(parts.database.db, {
          nodeId: 'node-proxy-one',
          name: 'Playback domain',
          host: 'Play.Example.com',
          port: 443,
        });
        expect(address).toMatchObject({
          nodeId: 'node-proxy-one',
          protocol: 'https',
          host: 'play.example.com',
          url: 'https://play.example.com',
          disabled: false,
        });
        expect(address.endpointToken).toMatch(/^svc_ept_[A-Za-z0-9_-]{43}$/);
        expect((await resolve(address.endpointToken)).body).toEqual({
          found: true,
          nodeId: 'node-proxy-one',
          disabled: false,
        });
        expect((await resolve('svc_ept_unknown')).body).toEqual({ found: false });
        // A registry token or node token of a worker node names no address.
        const tokens = await parts.nodes.tokens('node-local-play-agent');
        expect((await resolve(tokens!.registryToken!)).body).toEqual({ found: false });
        expect((await resolve(tokens!.nodeToken!)).body).toEqual({ found: false });
        expect(await node('node-proxy-one')).toMatchObject({
          serviceType: 'manual-play-agent-endpoint',
          disabled: false,
        });
      });

      it('answers disabled addresses as found with disabled:true, and generates ids when none is typed', async () => {
        const address = await parts.manualEndpoints.create({
          name: 'Old domain',
          host: 'old.example.com',
          port: 8443,
          disabled: true,
        });
        expect(address.nodeId).toMatch(/^node-[A-Za-z0-9]{12}$/);
        expect(address.url).toBe('https://old.example.com:8443');
        expect((await resolve(address.endpointToken)).body).toEqual({
          found: true,
          nodeId: address.nodeId,
          disabled: true,
        });
      });

      it('invalidates the old token at once when the token is regenerated', async () => {
        const before = (await parts.nodes.tokens('node-proxy-one'))!.endpointToken!;
        const after = await regenerateEndpointToken(parts.database.db, 'node-proxy-one');
        expect(after.endpointToken).not.toBe(before);
        expect((await resolve(before)).body).toEqual({ found: false });
        expect((await resolve(after.endpointToken)).body).toEqual({
          found: true,
          nodeId: 'node-proxy-one',
          disabled: false,
        });
      });

      it('refuses a taken id and regenerating something that is not a manual address', async () => {
        await expect(
          createManualEndpoint(parts.database.db, {
            nodeId: 'node-proxy-one',
            name: 'x',
            host: 'x.example.com',
          }),
        ).rejects.toMatchObject({ statusCode: 409, code: 'NODE_ID_TAKEN' });
        await expect(
          regenerateEndpointToken(parts.database.db, 'node-local-play-agent'),
        ).rejects.toMatchObject({
          statusCode: 404,
        });
        await expect(
          createManualEndpoint(parts.database.db, { nodeId: 'bad id', name: 'x', host: 'x.example.com' }),
        ).rejects.toMatchObject({ statusCode: 400 });
      });

      it('is service-only: no token 401, and not reachable through the console entrance', async () => {
        const direct = await config('POST', '/api/config/internal/endpoints/resolve', {
          body: { token: 'x' },
        });
        expect(direct.status).toBe(401);
        const viaEntrance = await entrance('POST', '/api/config/internal/endpoints/resolve', {
          headers: asService(),
          body: { token: 'x' },
        });
        expect(viaEntrance.status).toBe(404);
      });
    });

    describe('play-agent policy', () => {
      const admin: Identity = {
        userId: '00000000-0000-4000-8000-000000000001',
        username: 'root',
        role: 'admin',
        permissions: [...ALL_PERMISSIONS],
        tokenKind: 'admin',
        tokenId: 't1',
        clientIp: '203.0.113.1',
      };
      const internalPolicy = async () =>
        (await config('GET', '/api/config/internal/play-agent/policy', { headers: asService() })).body;

      it('starts from the defaults', async () => {
        expect(DEFAULT_PLAY_AGENT_POLICY).toEqual({
          protocol: 'proto_a',
          responseCache: false,
          metadataCacheTtlSeconds: 300,
          driveARedirect: false,
        });
        expect(await config('GET', '/api/config/play-agent/policy', { identity: admin })).toEqual({
          status: 200,
          body: DEFAULT_PLAY_AGENT_POLICY,
        });
        expect(await internalPolicy()).toEqual(DEFAULT_PLAY_AGENT_POLICY);
      });

      it('saves a valid change and the play-agents read it from the internal route', async () => {
        const saved = await config('PUT', '/api/config/play-agent/policy', {
          identity: admin,
          body: { responseCache: true, driveARedirect: true },
        });
        const expected = { ...DEFAULT_PLAY_AGENT_POLICY, responseCache: true, driveARedirect: true };
        expect(saved).toEqual({ status: 200, body: expected });
        expect(await internalPolicy()).toEqual(expected);
        const again = await config('PUT', '/api/config/play-agent/policy', {
          identity: admin,
          body: { protocol: 'proto_a', metadataCacheTtlSeconds: 600, driveARedirect: false },
        });
        expect(again.body).toEqual({ ...expected, metadataCacheTtlSeconds: 600, driveARedirect: false });
        expect(await internalPolicy()).toEqual({
          ...expected,
          metadataCacheTtlSeconds: 600,
          driveARedirect: false,
        });
      });

      it('refuses the announced-only protocols with 400 and keeps the policy', async () => {
        const before = await internalPolicy();
        for (const protocol of ['PROTO_B', 'PROTO_C']) {
          const answer = await config('PUT', '/api/config/play-agent/policy', {
            identity: admin,
            body: { protocol, responseCache: !(before as { responseCache: boolean }).responseCache },
          });
          expect(answer.status, protocol).toBe(400);
          expect(answer.body).toMatchObject({ error: { code: 'PROTOCOL_NOT_AVAILABLE' } });
        }
        for (const body of [
          {},
          { protocol: 'proto_x' },
          { metadataCacheTtlSeconds: 0 },
          { responseCache: 'yes' },
          { other: 1 },
        ]) {
          const answer = await config('PUT', '/api/config/play-agent/policy', { identity: admin, body });
          expect(answer.status, JSON.stringify(body)).toBe(400);
          expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
        }
        expect(await internalPolicy()).toEqual(before);
      });

      it("demands the 'settings' permission at the service as well (defence in depth)", async () => {
        const nodeOnly: Identity = { ...admin, role: 'user', permissions: ['node'] };
        expect((await config('GET', '/api/config/play-agent/policy', { identity: nodeOnly })).status).toBe(
          403,
        );
        expect(
          (
            await config('PUT', '/api/config/play-agent/policy', {
              identity: nodeOnly,
              body: { driveARedirect: true },
            })
          ).status,
        ).toBe(403);
        expect((await config('GET', '/api/config/play-agent/policy')).status).toBe(401);
        expect((await config('GET', '/api/config/internal/play-agent/policy')).status).toBe(401);
      });

      it("is reached through the gateway with an admin token holding 'settings'", async () => {
        const setup = await entrance('POST', '/api/auth/setup/admin', { body: ADMIN });
        expect(setup.status).toBe(201);
        const adminToken = await consoleToken(ADMIN.username, ADMIN.password);
        for (const [username, permissions] of [
          ['nodekeeper', ['node']],
          ['configurer', ['settings']],
        ] as const) {
          const created = await entrance('POST', '/api/auth/admin/users', {
            headers: { 'x-admin-token': adminToken },
            body: { username, password: PASSWORD, permissions },
          });
          expect(created.status).toBe(201);
        }
        const nodeKeeper = await consoleToken('nodekeeper', PASSWORD);
        const configurer = await consoleToken('configurer', PASSWORD);
        const path = '/api/config/play-agent/policy';
        const before = (await entrance('GET', path, { headers: { 'x-admin-token': adminToken } })).body;

        expect((await entrance('GET', path)).status).toBe(401);
        expect((await entrance('GET', path, { headers: { 'x-admin-token': nodeKeeper } })).status).toBe(403);
        const refused = await entrance('PUT', path, {
          headers: { 'x-admin-token': nodeKeeper },
          body: { responseCache: false },
        });
        expect(refused.status).toBe(403);
        expect(await internalPolicy()).toEqual(before);

        expect(await entrance('GET', path, { headers: { 'x-admin-token': configurer } })).toEqual({
          status: 200,
          body: before,
        });
        const saved = await entrance('PUT', path, {
          headers: { 'x-admin-token': configurer },
          body: { responseCache: false },
        });
        expect(saved).toEqual({ status: 200, body: { ...(before as object), responseCache: false } });
        expect(await internalPolicy()).toEqual({ ...(before as object), responseCache: false });
        const proto = await entrance('PUT', path, {
          headers: { 'x-admin-token': adminToken },
          body: { protocol: 'PROTO_B' },
        });
        expect(proto.status).toBe(400);

        // The internal route is not in the gateway table.
        expect(
          (
            await entrance('GET', '/api/config/internal/play-agent/policy', {
              headers: { 'x-admin-token': adminToken },
            })
          ).status,
        ).toBe(404);
      });

      async function consoleToken(username: string, password: string): Promise<string> {
        const login = await entrance<{ adminToken: string }>('POST', '/api/auth/login', {
          body: { username, password, client: 'console' },
        });
        expect(login.status, username).toBe(200);
        return login.body.adminToken;
      }
    });
  },
);
