import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import {
  REGISTRY_TOKEN_HEADER,
  type CreateNodeResponse,
  type DeleteNodeResponse,
  type ListNodesResponse,
  type NodeCredentials,
  type NodeView,
  type PlaybackRoutesResponse,
  type RegenerateEndpointTokenResponse,
} from '@svc/contracts';
import type { ConfigParts } from '../../../src/services/config/config.component.js';
import type { LicenseFacts, LicenseGate } from '../../../src/services/config/licenses/license-gate.js';
import { CONSOLE_PASSWORD, startConsoleInstall, type ConsoleInstall } from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';
import { waitFor, type TestInstall } from '../../support/runtime.js';

/** A licence the test sets at will; counts the refreshes node creation makes. */
class FakeLicence implements LicenseGate {
  refreshes = 0;
  facts: LicenseFacts = {
    state: 'NONE',
    edition: 'STANDALONE',
    maxStorageNodes: 0,
    maxPlayAgentNodes: 0,
    validUntil: null,
    graceUntil: null,
  };
  set(facts: Partial<LicenseFacts>): void {
    this.facts = { ...this.facts, ...facts };
  }
  /** When set, refresh() holds every caller until this many are waiting, then lets them all go at once. */
  private barrier: { size: number; waiting: (() => void)[] } | undefined;
  holdUntil(size: number): void {
    this.barrier = { size, waiting: [] };
  }
  async refresh(): Promise<LicenseFacts> {
    this.refreshes++;
    const barrier = this.barrier;
    if (barrier) {
      await new Promise<void>((resolve) => {
        barrier.waiting.push(resolve);
        if (barrier.waiting.length >= barrier.size) {
          this.barrier = undefined;
          for (const release of barrier.waiting) release();
        }
      });
    }
    return { ...this.facts };
  }
}

/** A self-signed certificate for 127.0.0.1 made with openssl. */
function selfSigned(dir: string, name: string): { key: string; cert: string } {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ed25519',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}

async function listen(server: HttpsServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const PASSWORD = CONSOLE_PASSWORD;
const TOKEN_SHAPE = {
  node: /^svc_nt_[A-Za-z0-9_-]{43}$/,
  registry: /^svc_rt_[A-Za-z0-9_-]{43}$/,
  endpoint: /^svc_ept_[A-Za-z0-9_-]{43}$/,
};

describe.each(installBackends())('node management through the gateway on $label', (backend) => {
  let control: ConsoleInstall;
  let install: TestInstall;
  let parts: ConfigParts;
  let adminToken: string;
  const licence = new FakeLicence();
  const folder = mkdtempSync(path.join(tmpdir(), 'svc-node-mgmt-'));
  const trusted = selfSigned(folder, 'trusted');
  const untrusted = selfSigned(folder, 'untrusted');
  const probeAgent = new Agent({ connect: { ca: trusted.cert } });
  let healthy = true;
  const healthServer = createHttpsServer(trusted, (req, res) => {
    if (req.url === '/health' && healthy) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
    } else {
      res.writeHead(503).end();
    }
  });
  // Answers nothing: the probe must give up after 2,400 ms.
  const silentServer = createHttpsServer(trusted, () => undefined);
  const strangerServer = createHttpsServer(untrusted, (_req, res) => res.writeHead(200).end('{}'));
  let healthPort = 0;
  let silentPort = 0;
  let strangerPort = 0;

  const api = <T = unknown>(
    method: string,
    route: string,
    options: { admin?: string; bearer?: string; body?: unknown } = {},
  ) => control.api<T>(method, route, options);
  const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
    api<T>(method, route, { admin: adminToken, body });
  const list = async () => {
    const answer = await admin<ListNodesResponse>('GET', '/api/config/nodes');
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const create = (body: Record<string, unknown>) =>
    admin<CreateNodeResponse>('POST', '/api/config/nodes', body);
  const credentials = async (nodeId: string) => {
    const answer = await admin<NodeCredentials>('GET', `/api/config/nodes/${nodeId}/credentials`);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const setEdition = async (edition: 'STANDALONE' | 'DISTRIBUTED') => {
    await parts.database.db.updateTable('deployment_state').set({ edition }).where('id', '=', 1).execute();
  };
  const runProbe = async () => {
    expect(await install.context.schedulers.get('config')!.runNow('nodes.manual-health')).toBe('ran');
  };
  const consoleLogin = (username: string, password: string) => control.login(username, 'console', password);
  const createUser = (username: string, permissions: string[] = []) =>
    control.createUser(username, { permissions });
  /** The play-agent's question (service token): which manual address does this endpoint token name? */
  const resolve = async (token: string) => {
    const response = await request(`${install.url('config')}/api/config/internal/endpoints/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-service-token': install.context.serviceToken },
      body: JSON.stringify({ token }),
    });
    expect(response.statusCode).toBe(200);
    return (await response.body.json()) as { found: boolean; nodeId?: string };
  };
  /** A GET on the config service with the service token (the registry and the internal directory). */
  const serviceGet = async <T>(route: string) => {
    const response = await request(`${install.url('config')}${route}`, {
      headers: { 'x-svc-service-token': install.context.serviceToken },
    });
    return (await response.body.json()) as T;
  };
  /** The heartbeat of storage-two's own process, sent with its registry token; answers the status code. */
  const storageTwoHeartbeat = async (registryToken: string) => {
    const response = await request(`${install.url('config')}/api/config/registry/instances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [REGISTRY_TOKEN_HEADER]: registryToken },
      body: JSON.stringify({
        service: 'svc-control-storage',
        instanceId: 'storage-two@host',
        nodeId: 'node-storage-two',
        baseUrl: 'http://10.0.0.20:18084',
      }),
    });
    return response.statusCode;
  };
  const node = async (nodeId: string) => (await admin<NodeView>('GET', `/api/config/nodes/${nodeId}`)).body;
  /** Disables or enables a record straight in the database (the console has no switch for it). */
  const setDisabled = async (nodeId: string, disabled: boolean) => {
    await parts.database.db.updateTable('nodes').set({ disabled }).where('node_id', '=', nodeId).execute();
  };

  beforeAll(async () => {
    healthPort = await listen(healthServer);
    silentPort = await listen(silentServer);
    strangerPort = await listen(strangerServer);
    control = await startConsoleInstall(backend.env, {
      config: { licenseGate: licence, probeDispatcher: probeAgent },
    });
    ({ install, config: parts, adminToken } = control);
    // The config service finds the user service in its registry (playback routes).
    await waitFor(async () => {
      const body = await serviceGet<{ instances: unknown[] }>(
        '/api/config/registry/instances?service=svc-user',
      );
      return body.instances.length > 0 ? true : undefined;
    });
  });

  afterAll(async () => {
    await control?.stop();
    await backend.cleanup();
    healthServer.closeAllConnections();
    silentServer.closeAllConnections();
    strangerServer.closeAllConnections();
    await Promise.all(
      [healthServer, silentServer, strangerServer].map(
        (server) => new Promise((resolve) => server.close(resolve)),
      ),
    );
    await probeAgent.close();
    rmSync(folder, { recursive: true, force: true });
  });

  describe('permission', () => {
    it('requires an admin token holding `node`', async () => {
      expect((await api('GET', '/api/config/nodes')).status).toBe(401);
      await createUser('librarian', ['library']);
      const librarian = await consoleLogin('librarian', PASSWORD);
      for (const [method, route] of [
        ['GET', '/api/config/nodes'],
        ['POST', '/api/config/nodes'],
        ['GET', '/api/config/nodes/node-local-storage/credentials'],
        ['DELETE', '/api/config/nodes/node-local-storage'],
      ] as const) {
        const answer = await api(method, route, {
          admin: librarian,
          body: method === 'POST' ? { serviceType: 'svc-control-storage' } : undefined,
        });
        expect(answer.status, `${method} ${route}`).toBe(403);
      }
      await createUser('operator', ['node']);
      const operator = await consoleLogin('operator', PASSWORD);
      expect((await api('GET', '/api/config/nodes', { admin: operator })).status).toBe(200);
    });
  });

  describe('listing and "show full command"', () => {
    it('lists the built-in nodes with masked tokens; the full ones only on the credentials route', async () => {
      const listed = await list();
      expect(listed.edition).toBe('STANDALONE');
      expect(listed.slotsUsed).toEqual({ storage: 0, playAgent: 0 });
      const storage = listed.nodes.find((node) => node.nodeId === 'node-local-storage')!;
      const player = listed.nodes.find((node) => node.nodeId === 'node-local-play-agent')!;
      expect(storage).toMatchObject({
        serviceType: 'svc-control-storage',
        scope: 'EMBEDDED',
        status: 'PENDING',
        lastHeartbeatAt: null,
        expectedPort: 18084,
        listenPort: null,
        externalAddress: null,
        probe: null,
      });
      expect(player).toMatchObject({ serviceType: 'svc-play-agent', expectedPort: 19090, listenPort: 19090 });

      const full = await credentials('node-local-storage');
      expect(full.nodeToken).toMatch(TOKEN_SHAPE.node);
      expect(full.registryToken).toMatch(TOKEN_SHAPE.registry);
      expect(storage.tokens.nodeToken).toBe(`svc_nt_…${full.nodeToken!.slice(-4)}`);
      expect(storage.tokens.registryToken).toBe(`svc_rt_…${full.registryToken!.slice(-4)}`);
      expect(JSON.stringify(listed)).not.toContain(full.nodeToken!);
      expect(JSON.stringify(listed)).not.toContain(full.registryToken!);
      // Built-in nodes are not installed, upgraded or uninstalled on their own.
      expect(full.installCommands).toEqual([]);
      expect((await admin('GET', '/api/config/nodes/node-nope/credentials')).status).toBe(404);
    });
  });

  describe('standalone edition', () => {
    it('refuses worker nodes without asking the licence, and accepts manual addresses (no licence, no slot)', async () => {
      const before = await list();
      for (const serviceType of ['svc-control-storage', 'svc-play-agent']) {
        const refused = await create({ serviceType, name: 'Worker', expectedHost: '10.0.0.5' });
        expect(refused.status).toBe(409);
        expect(refused.error?.code).toBe('EDITION_NOT_DISTRIBUTED');
        expect(refused.error?.message).toContain('standalone install only adds manual addresses');
      }
      expect(licence.refreshes).toBe(0);
      expect((await list()).nodes).toHaveLength(before.nodes.length);

      const manual = await create({
        serviceType: 'manual-play-agent-endpoint',
        name: 'Proxy',
        externalAddress: { protocol: 'https', host: 'Play.Example.INVALID', port: 443 },
      });
      expect(manual.status).toBe(201);
      expect(manual.body.node.nodeId).toMatch(/^node-[A-Za-z0-9]{12}$/);
      expect(manual.body.node).toMatchObject({
        serviceType: 'manual-play-agent-endpoint',
        scope: 'EXTERNAL',
        status: 'PENDING',
        expectedHost: null,
        externalAddress: {
          protocol: 'https',
          host: 'play.example.invalid',
          port: 443,
          url: 'https://play.example.invalid',
        },
      });
      expect(manual.body.credentials.endpointToken).toMatch(TOKEN_SHAPE.endpoint);
      expect(manual.body.credentials.nodeToken).toBeNull();
      expect(manual.body.credentials.installCommands).toEqual([]);
      expect(manual.body.node.tokens.endpointToken).toBe(
        `svc_ept_…${manual.body.credentials.endpointToken!.slice(-4)}`,
      );
      expect(licence.refreshes).toBe(0);
      expect((await list()).slotsUsed).toEqual({ storage: 0, playAgent: 0 });
      // Port 8443 stays in the URL; http is not a manual address's protocol.
      const other = await create({
        serviceType: 'manual-play-agent-endpoint',
        nodeId: 'node-proxy-8443',
        name: 'Proxy 8443',
        externalAddress: { host: 'alt.example.invalid', port: 8443 },
      });
      expect(other.status).toBe(201);
      expect(other.body.node.externalAddress?.url).toBe('https://alt.example.invalid:8443');
      const http = await create({
        serviceType: 'manual-play-agent-endpoint',
        name: 'Plain',
        externalAddress: { protocol: 'http', host: 'plain.example.invalid' },
      });
      expect(http.status).toBe(400);
    });
  });

  describe('licence and slots (DISTRIBUTED)', () => {
    beforeAll(async () => {
      await setEdition('DISTRIBUTED');
    });

    it('refreshes the licence first and refuses NONE, EXPIRED and INVALID with LICENSE_NOT_ACTIVE; GRACE is fine', async () => {
      const before = await list();
      for (const state of ['NONE', 'EXPIRED', 'INVALID'] as const) {
        licence.set({ state, edition: 'DISTRIBUTED', maxStorageNodes: 10, maxPlayAgentNodes: 10 });
        const refreshes = licence.refreshes;
        const refused = await create({
          serviceType: 'svc-control-storage',
          name: 'S',
          expectedHost: '10.0.0.9',
        });
        expect(refused.status, state).toBe(409);
        expect(refused.error).toMatchObject({ code: 'LICENSE_NOT_ACTIVE', details: { state } });
        expect(licence.refreshes).toBe(refreshes + 1);
      }
      expect((await list()).nodes).toHaveLength(before.nodes.length);

      licence.set({ state: 'GRACE' });
      const created = await create({
        serviceType: 'svc-control-storage',
        nodeId: 'node-storage-grace',
        name: 'Storage in grace',
        expectedHost: '10.0.0.9',
      });
      expect(created.status).toBe(201);
      expect(created.body.node).toMatchObject({
        nodeId: 'node-storage-grace',
        scope: 'EXTERNAL',
        status: 'PENDING',
        expectedHost: '10.0.0.9',
        expectedPort: 18084,
        listenPort: null,
      });
      expect(created.body.credentials.nodeToken).toMatch(TOKEN_SHAPE.node);
      expect(created.body.credentials.registryToken).toMatch(TOKEN_SHAPE.registry);
      expect(created.body.credentials.endpointToken).toBeNull();
    });

    it('checks ids: the pattern (400), a taken id (409 NODE_ID_TAKEN), and generates one when empty', async () => {
      licence.set({ state: 'ACTIVE', maxStorageNodes: 100, maxPlayAgentNodes: 100 });
      const before = await list();
      for (const nodeId of [
        'bad id',
        'node-ab',
        'node-has space',
        `node-${'x'.repeat(61)}`,
        'Node-abc',
        'node-ü12',
      ]) {
        const answer = await create({
          serviceType: 'svc-control-storage',
          nodeId,
          name: 'S',
          expectedHost: 'h.invalid',
        });
        expect(answer.status, nodeId).toBe(400);
        expect(answer.error?.code).toBe('VALIDATION_FAILED');
      }
      // A built-in record of another type keeps its id (one of the same type is taken over: former-built-in-nodes.test.ts).
      for (const nodeId of ['node-local-play-agent', 'node-storage-grace', 'node-proxy-8443']) {
        const taken = await create({
          serviceType: 'svc-control-storage',
          nodeId,
          name: 'S',
          expectedHost: 'h.invalid',
        });
        expect(taken.status, nodeId).toBe(409);
        expect(taken.error?.code).toBe('NODE_ID_TAKEN');
        const manual = await create({
          serviceType: 'manual-play-agent-endpoint',
          nodeId,
          name: 'M',
          externalAddress: { host: 'm.example.invalid' },
        });
        expect(manual.status, nodeId).toBe(409);
        expect(manual.error?.code).toBe('NODE_ID_TAKEN');
      }
      expect((await list()).nodes).toHaveLength(before.nodes.length);

      const generated = await create({
        serviceType: 'svc-control-storage',
        nodeId: '',
        name: 'Gen',
        expectedHost: 'gen.invalid',
      });
      expect(generated.status).toBe(201);
      expect(generated.body.node.nodeId).toMatch(/^node-[A-Za-z0-9]{12}$/);
      const longest = `node-${'a_B-9'.repeat(12)}`;
      expect(
        (
          await create({
            serviceType: 'svc-control-storage',
            nodeId: longest,
            name: 'L',
            expectedHost: 'l.invalid',
          })
        ).status,
      ).toBe(201);
      // Delete them again so the slot counts below start from known numbers.
      expect((await admin('DELETE', `/api/config/nodes/${generated.body.node.nodeId}`)).status).toBe(200);
      expect((await admin('DELETE', `/api/config/nodes/${longest}`)).status).toBe(200);
    });

    it('refuses a full quota with "licence quota full"; built-in nodes and manual addresses never count', async () => {
      // In use: node-storage-grace (1 storage). The built-in storage node does not count.
      expect((await list()).slotsUsed).toEqual({ storage: 1, playAgent: 0 });
      licence.set({ state: 'ACTIVE', maxStorageNodes: 2, maxPlayAgentNodes: 0 });
      expect(
        (
          await create({
            serviceType: 'svc-control-storage',
            nodeId: 'node-storage-two',
            name: 'S2',
            expectedHost: '10.0.0.10',
          })
        ).status,
      ).toBe(201);
      const before = await list();
      const full = await create({
        serviceType: 'svc-control-storage',
        nodeId: 'node-storage-three',
        name: 'S3',
        expectedHost: '10.0.0.11',
      });
      expect(full.status).toBe(409);
      expect(full.error?.code).toBe('LICENSE_QUOTA_FULL');
      expect(full.error?.message).toContain('licence quota full');
      expect(full.error?.details).toEqual({ serviceType: 'svc-control-storage', used: 2, max: 2 });
      const noPlayers = await create({ serviceType: 'svc-play-agent', name: 'P', expectedHost: '10.0.0.12' });
      expect(noPlayers.status).toBe(409);
      expect(noPlayers.error?.message).toContain('licence quota full');
      expect((await list()).nodes).toHaveLength(before.nodes.length);
      // Manual addresses still work with every slot taken, and take none.
      const manual = await create({
        serviceType: 'manual-play-agent-endpoint',
        nodeId: 'node-proxy-full',
        name: 'Proxy while full',
        externalAddress: { host: 'full.example.invalid' },
      });
      expect(manual.status).toBe(201);
      expect((await list()).slotsUsed).toEqual({ storage: 2, playAgent: 0 });
      // A disabled record does not hold a slot.
      await setDisabled('node-storage-two', true);
      expect((await list()).slotsUsed).toEqual({ storage: 1, playAgent: 0 });
      await setDisabled('node-storage-two', false);
    });

    it('gives the last slot to exactly one of several concurrent creations', async () => {
      const used = (await list()).slotsUsed.playAgent;
      licence.set({ state: 'ACTIVE', maxPlayAgentNodes: used + 1 });
      // All six pass the licence check together and race for the one slot.
      licence.holdUntil(6);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          create({
            serviceType: 'svc-play-agent',
            nodeId: `node-race-${i}`,
            name: `Race ${i}`,
            expectedHost: `race${i}.invalid`,
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((a) => a.status === 409)) {
        expect(answer.error?.code).toBe('LICENSE_QUOTA_FULL');
      }
      const after = await list();
      expect(after.slotsUsed.playAgent).toBe(used + 1);
      expect(after.nodes.filter((node) => node.nodeId.startsWith('node-race-'))).toHaveLength(1);
      // Free it again.
      const winner = answers.find((answer) => answer.status === 201)!.body.node.nodeId;
      expect((await admin('DELETE', `/api/config/nodes/${winner}`)).status).toBe(200);
    });

    it('gives a second play-agent on the same host 19091 and refuses an explicit port in use', async () => {
      licence.set({ state: 'ACTIVE', maxPlayAgentNodes: 100 });
      const first = await create({
        serviceType: 'svc-play-agent',
        nodeId: 'node-player-a',
        name: 'A',
        expectedHost: 'media.example.invalid',
      });
      expect(first.status).toBe(201);
      expect(first.body.node).toMatchObject({ listenPort: 19090, expectedPort: 19090 });
      const second = await create({
        serviceType: 'svc-play-agent',
        nodeId: 'node-player-b',
        name: 'B',
        expectedHost: 'MEDIA.example.invalid',
      });
      expect(second.status).toBe(201);
      expect(second.body.node).toMatchObject({ listenPort: 19091, expectedPort: 19091 });
      const clash = await create({
        serviceType: 'svc-play-agent',
        nodeId: 'node-player-c',
        name: 'C',
        expectedHost: 'media.example.invalid',
        listenPort: 19091,
      });
      expect(clash.status).toBe(409);
      expect(clash.error).toMatchObject({
        code: 'LISTEN_PORT_TAKEN',
        details: { port: 19091, nodeId: 'node-player-b' },
      });
      expect((await admin('GET', '/api/config/nodes/node-player-c')).status).toBe(404);
      // The same port on another host is free; an explicit free port is kept.
      const elsewhere = await create({
        serviceType: 'svc-play-agent',
        nodeId: 'node-player-d',
        name: 'D',
        expectedHost: 'other.example.invalid',
        listenPort: 19090,
        expectedPort: 443,
      });
      expect(elsewhere.status).toBe(201);
      expect(elsewhere.body.node).toMatchObject({ listenPort: 19090, expectedPort: 443 });
      // Storage nodes have no listen port.
      expect(
        (
          await create({
            serviceType: 'svc-control-storage',
            name: 'S',
            expectedHost: 'h.invalid',
            listenPort: 19090,
          })
        ).status,
      ).toBe(400);
      // Editing follows the same rule.
      const moved = await admin<NodeView>('PATCH', '/api/config/nodes/node-player-d', {
        expectedHost: 'media.example.invalid',
      });
      expect(moved.status).toBe(409);
      expect(moved.error?.code).toBe('LISTEN_PORT_TAKEN');
      expect((await node('node-player-d')).expectedHost).toBe('other.example.invalid');
      const repick = await admin<NodeView>('PATCH', '/api/config/nodes/node-player-b', { listenPort: 19090 });
      expect(repick.status).toBe(409);
      const free = await admin<NodeView>('PATCH', '/api/config/nodes/node-player-b', { listenPort: 19095 });
      expect(free.status).toBe(200);
      expect(free.body).toMatchObject({ listenPort: 19095, expectedPort: 19095 });
    });

    it('reveals the full tokens and the install commands of the kinds valid for the type', async () => {
      const configUrl = install.context.settings.configBaseUrl.replace(/\/+$/, '');
      const player = await credentials('node-player-a');
      const token = player.nodeToken!;
      expect(token).toMatch(TOKEN_SHAPE.node);
      expect(player.configUrl).toBe(configUrl);
      const plain = player.installCommands.filter((c) => !c.ffmpeg);
      expect(plain.map((c) => c.kind)).toEqual([
        'binary',
        'docker',
        'uninstall',
        'upgrade-binary',
        'upgrade-docker',
      ]);
      expect(plain[0]!.command).toBe(
        `curl -fsSL ${configUrl}/api/config/nodes/install/${token}/binary | bash`,
      );
      const ffmpeg = player.installCommands.filter((c) => c.ffmpeg);
      expect(ffmpeg.map((c) => c.kind)).toEqual(['binary', 'docker', 'upgrade-binary', 'upgrade-docker']);
      expect(ffmpeg[1]!.command).toBe(
        `curl -fsSL '${configUrl}/api/config/nodes/install/${token}/docker?ffmpeg=true' | bash`,
      );
      const storage = await credentials('node-storage-two');
      expect(storage.installCommands.map((c) => c.kind)).toEqual([
        'binary',
        'binary-jdk',
        'docker',
        'uninstall',
        'upgrade-binary',
        'upgrade-docker',
      ]);
      expect(storage.installCommands.every((c) => !c.ffmpeg)).toBe(true);
      expect(storage.installCommands.every((c) => c.command.includes(storage.nodeToken!))).toBe(true);
      // The list and the single record stay masked.
      const view = await admin<NodeView>('GET', '/api/config/nodes/node-player-a');
      expect(view.body.tokens.nodeToken).toBe(`svc_nt_…${token.slice(-4)}`);
      expect(JSON.stringify((await list()).nodes)).not.toContain(token);
    });

    it('edits name, host, ports, note and external address; a built-in node only name, note and address', async () => {
      const edited = await admin<NodeView>('PATCH', '/api/config/nodes/node-storage-two', {
        name: 'Storage two',
        note: 'rack 3',
        expectedHost: '10.0.0.20',
        expectedPort: 18184,
        externalAddress: { protocol: 'http', host: 'files.example.invalid', port: 80 },
      });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({
        name: 'Storage two',
        note: 'rack 3',
        expectedHost: '10.0.0.20',
        expectedPort: 18184,
        externalAddress: {
          protocol: 'http',
          host: 'files.example.invalid',
          port: 80,
          url: 'http://files.example.invalid',
        },
      });
      const cleared = await admin<NodeView>('PATCH', '/api/config/nodes/node-storage-two', {
        externalAddress: null,
        expectedPort: null,
      });
      expect(cleared.body).toMatchObject({ externalAddress: null, expectedPort: 18084 });
      expect((await admin('PATCH', '/api/config/nodes/node-storage-two', {})).status).toBe(400);
      expect((await admin('PATCH', '/api/config/nodes/node-missing', { name: 'x' })).status).toBe(404);

      const builtIn = await admin<NodeView>('PATCH', '/api/config/nodes/node-local-play-agent', {
        name: 'Living room',
        note: 'built in',
        externalAddress: { protocol: 'https', host: 'home.example.invalid', port: 443 },
      });
      expect(builtIn.status).toBe(200);
      expect(builtIn.body).toMatchObject({
        name: 'Living room',
        scope: 'EMBEDDED',
        externalAddress: { url: 'https://home.example.invalid' },
      });
      for (const body of [
        { expectedHost: '10.0.0.1' },
        { listenPort: 19099 },
        { expectedPort: 1 },
        { name: 'x', listenPort: 19099 },
      ]) {
        const refused = await admin('PATCH', '/api/config/nodes/node-local-play-agent', body);
        expect(refused.status, JSON.stringify(body)).toBe(409);
        expect(refused.error?.code).toBe('NODE_EMBEDDED');
      }
      expect(await node('node-local-play-agent')).toMatchObject({
        name: 'Living room',
        listenPort: 19090,
        expectedHost: null,
      });
    });

    it('never deletes a built-in node; deleting answers what became of the uninstall and keeps other records', async () => {
      for (const nodeId of ['node-local-storage', 'node-local-play-agent']) {
        const refused = await admin('DELETE', `/api/config/nodes/${nodeId}?sendUninstall=true`);
        expect(refused.status).toBe(409);
        expect(refused.error?.code).toBe('NODE_EMBEDDED');
        expect((await admin('GET', `/api/config/nodes/${nodeId}`)).status).toBe(200);
      }

      // A node that never came up: the uninstall cannot reach it.
      const pending = await admin<DeleteNodeResponse>(
        'DELETE',
        '/api/config/nodes/node-player-d?sendUninstall=true',
      );
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({
        nodeId: 'node-player-d',
        deleted: true,
        uninstall: 'unreachable',
      });
      expect((await admin('GET', '/api/config/nodes/node-player-d')).status).toBe(404);

      // An ONLINE node: no command channel exists, so the answer says it was not sent.
      const storage = await credentials('node-storage-two');
      expect(await storageTwoHeartbeat(storage.registryToken!)).toBe(204);
      expect((await node('node-storage-two')).status).toBe('ONLINE');
      const online = await admin<DeleteNodeResponse>(
        'DELETE',
        '/api/config/nodes/node-storage-two?sendUninstall=true',
      );
      expect(online.status).toBe(200);
      expect(online.body.uninstall).toBe('not-sent');
      expect(online.body.message).toContain('run the uninstall command on the machine');
      const removals = await parts.database.db
        .selectFrom('node_removals')
        .select(['node_id', 'uninstall_requested', 'uninstall_result'])
        .where('node_id', 'in', ['node-player-d', 'node-storage-two'])
        .orderBy('id')
        .execute();
      expect(removals).toEqual([
        { node_id: 'node-player-d', uninstall_requested: true, uninstall_result: 'unreachable' },
        { node_id: 'node-storage-two', uninstall_requested: true, uninstall_result: 'not-sent' },
      ]);
      // Its registry entry stays; its registry token stops working with the record.
      const instances = await serviceGet<{ instances: unknown[] }>(
        '/api/config/registry/instances?nodeId=node-storage-two',
      );
      expect(instances.instances).toHaveLength(1);
      expect(await storageTwoHeartbeat(storage.registryToken!)).toBe(403);
      // The slot is free again.
      expect((await list()).slotsUsed.storage).toBe(1);

      const manual = await admin<DeleteNodeResponse>(
        'DELETE',
        '/api/config/nodes/node-proxy-full?sendUninstall=true',
      );
      expect(manual.body.uninstall).toBe('not-applicable');
      const plain = await create({
        serviceType: 'svc-play-agent',
        nodeId: 'node-player-e',
        name: 'E',
        expectedHost: 'e.invalid',
      });
      expect(plain.status).toBe(201);
      const quiet = await admin<DeleteNodeResponse>('DELETE', '/api/config/nodes/node-player-e');
      expect(quiet.body.uninstall).toBe('not-requested');
      expect((await admin('DELETE', '/api/config/nodes/node-player-e')).status).toBe(404);
    });
  });

  describe('manual addresses', () => {
    it('regenerates the endpoint token: the old one stops resolving at once', async () => {
      const before = await credentials('node-proxy-8443');
      const old = before.endpointToken!;
      expect(await resolve(old)).toMatchObject({ found: true, nodeId: 'node-proxy-8443' });
      const fresh = await admin<RegenerateEndpointTokenResponse>(
        'POST',
        '/api/config/nodes/node-proxy-8443/endpoint-token',
      );
      expect(fresh.status).toBe(200);
      expect(fresh.headers['cache-control']).toBe('no-store');
      expect(fresh.body.endpointToken).toMatch(TOKEN_SHAPE.endpoint);
      expect(fresh.body.endpointToken).not.toBe(old);
      expect(fresh.body.node.tokens.endpointToken).toBe(`svc_ept_…${fresh.body.endpointToken.slice(-4)}`);
      expect(await resolve(old)).toEqual({ found: false });
      expect(await resolve(fresh.body.endpointToken)).toMatchObject({
        found: true,
        nodeId: 'node-proxy-8443',
      });
      expect((await credentials('node-proxy-8443')).endpointToken).toBe(fresh.body.endpointToken);
      const worker = await admin('POST', '/api/config/nodes/node-player-a/endpoint-token');
      expect(worker.status).toBe(400);
      expect((await admin('POST', '/api/config/nodes/node-nothing/endpoint-token')).status).toBe(404);
    });

    it('edits only the name, note and address of a manual address', async () => {
      expect(
        (await admin('PATCH', '/api/config/nodes/node-proxy-8443', { expectedHost: 'x.invalid' })).status,
      ).toBe(400);
      expect(
        (await admin('PATCH', '/api/config/nodes/node-proxy-8443', { externalAddress: null })).status,
      ).toBe(400);
      expect(
        (
          await admin('PATCH', '/api/config/nodes/node-proxy-8443', {
            externalAddress: { protocol: 'http', host: 'x.invalid' },
          })
        ).status,
      ).toBe(400);
    });

    it('probes GET https://<domain>[:port]/health and shows online or offline with the time of the probe', async () => {
      const target = await create({
        serviceType: 'manual-play-agent-endpoint',
        nodeId: 'node-proxy-live',
        name: 'Live proxy',
        externalAddress: { host: '127.0.0.1', port: healthPort },
      });
      expect(target.status).toBe(201);
      for (const [nodeId, port] of [
        ['node-proxy-silent', silentPort],
        ['node-proxy-stranger', strangerPort],
        ['node-proxy-closed', 9],
      ] as const) {
        expect(
          (
            await create({
              serviceType: 'manual-play-agent-endpoint',
              nodeId,
              name: nodeId,
              externalAddress: { host: '127.0.0.1', port },
            })
          ).status,
        ).toBe(201);
      }
      expect(await node('node-proxy-live')).toMatchObject({
        status: 'PENDING',
        probe: null,
      });

      const started = Date.now();
      await runProbe();
      // Every address at once: the silent one costs at most about the 2,400 ms timeout.
      expect(Date.now() - started).toBeLessThan(10_000);
      const live = await node('node-proxy-live');
      expect(live.status).toBe('ONLINE');
      expect(live.probe).toMatchObject({ state: 'online', detail: 'reachable (HTTP 200)' });
      expect(Date.parse(live.probe!.checkedAt)).toBeGreaterThanOrEqual(started - 1000);
      expect(live.lastHeartbeatAt).toBe(live.probe!.checkedAt);
      const silent = await node('node-proxy-silent');
      expect(silent).toMatchObject({
        status: 'offline',
        probe: { state: 'offline', detail: 'not reachable' },
      });
      // A silent port, a foreign certificate and a closed port read alike: no socket error to scan ports by.
      for (const nodeId of ['node-proxy-stranger', 'node-proxy-closed']) {
        expect(await node(nodeId)).toMatchObject({
          status: 'offline',
          probe: { state: 'offline', detail: 'not reachable' },
        });
      }
      // The internal directory agrees.
      const { nodes: entries } = await serviceGet<{ nodes: { nodeId: string; status: string }[] }>(
        '/api/config/internal/nodes?ids=node-proxy-live,node-proxy-silent',
      );
      expect(Object.fromEntries(entries.map((entry) => [entry.nodeId, entry.status]))).toEqual({
        'node-proxy-live': 'ONLINE',
        'node-proxy-silent': 'offline',
      });
      // The next probes need not wait for the silent address.
      for (const nodeId of ['node-proxy-silent', 'node-proxy-closed']) {
        expect((await admin('DELETE', `/api/config/nodes/${nodeId}`)).status).toBe(200);
      }

      healthy = false;
      await runProbe();
      const down = await node('node-proxy-live');
      expect(down).toMatchObject({
        status: 'offline',
        probe: { state: 'offline', detail: 'wrong answer (HTTP 503)' },
      });
      // The last successful probe stays as the last heartbeat.
      expect(down.lastHeartbeatAt).toBe(live.lastHeartbeatAt);
      healthy = true;
      await runProbe();
      expect((await node('node-proxy-live')).status).toBe('ONLINE');
      // A changed address forgets the old result until the next probe.
      const moved = await admin<NodeView>('PATCH', '/api/config/nodes/node-proxy-stranger', {
        externalAddress: { protocol: 'https', host: '127.0.0.1', port: healthPort },
      });
      expect(moved.body).toMatchObject({ status: 'PENDING', probe: null });
      await runProbe();
      expect((await node('node-proxy-stranger')).status).toBe('ONLINE');
    });
  });

  describe('playback routes of the signed-in account', () => {
    it('lists play-agent nodes and manual addresses the account may use, with URL and health', async () => {
      // node-player-a: external address https:443; node-player-b: expected host and listen port.
      expect(
        (
          await admin('PATCH', '/api/config/nodes/node-player-a', {
            externalAddress: { protocol: 'https', host: 'play.example.invalid', port: 443 },
          })
        ).status,
      ).toBe(200);
      await setDisabled('node-proxy-stranger', true);

      const viewerId = await createUser('viewer');
      const login = await api<{ accessToken: string }>('POST', '/api/auth/login', {
        body: { username: 'viewer', password: PASSWORD, client: 'portal' },
      });
      expect(login.status).toBe(200);
      const bearer = login.body.accessToken;
      const routes = async () => {
        const answer = await api<PlaybackRoutesResponse>('GET', '/api/config/me/playback-routes', { bearer });
        expect(answer.status).toBe(200);
        return answer.body.routes;
      };
      const access = async (body: unknown) =>
        expect(
          (await admin('PUT', `/api/auth/admin/users/${viewerId}/node-access`, body)).status,
        ).toBeLessThan(300);

      await access({
        mode: 'ALLOW_LIST',
        entries: [
          { kind: 'node', id: 'node-player-a' },
          { kind: 'endpoint', id: 'node-proxy-live' },
          { kind: 'endpoint', id: 'node-proxy-stranger' },
        ],
      });
      expect(await routes()).toEqual([
        {
          kind: 'node',
          id: 'node-player-a',
          name: 'A',
          url: 'https://play.example.invalid',
          source: 'external-address',
          health: 'pending',
        },
        {
          kind: 'endpoint',
          id: 'node-proxy-live',
          name: 'Live proxy',
          url: `https://127.0.0.1:${healthPort}`,
          source: 'manual-address',
          health: 'online',
        },
      ]);

      await access({ mode: 'ALL', entries: [] });
      const all = await routes();
      const ids = all.map((route) => route.id);
      expect(ids).toContain('node-local-play-agent');
      expect(ids).toContain('node-player-b');
      expect(ids).toContain('node-proxy-8443');
      // No storage nodes, no disabled records.
      expect(ids).not.toContain('node-local-storage');
      expect(ids).not.toContain('node-storage-grace');
      expect(ids).not.toContain('node-proxy-stranger');
      expect(all.find((route) => route.id === 'node-player-b')).toMatchObject({
        url: 'http://media.example.invalid:19095',
        source: 'direct-address',
      });
      expect(all.find((route) => route.id === 'node-local-play-agent')).toMatchObject({
        url: 'https://home.example.invalid',
        source: 'external-address',
      });
      expect(all.find((route) => route.id === 'node-proxy-8443')?.url).toBe(
        'https://alt.example.invalid:8443',
      );

      await access({ mode: 'NONE', entries: [] });
      expect(await routes()).toEqual([]);

      // The console's admin token of the same kind of account works as well; no token does not.
      expect((await api('GET', '/api/config/me/playback-routes', { admin: adminToken })).status).toBe(200);
      expect((await api('GET', '/api/config/me/playback-routes')).status).toBe(401);
    });
  });
});
