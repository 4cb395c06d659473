import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreateNodeResponse,
  DashboardHealthResponse,
  ListItemsResponse,
  ListNodesResponse,
  NodeView,
  PlaybackRoutesResponse,
} from '@svc/contracts';
import { takeOverRequest } from '../../../src/form-migration/distributed-plan.js';
import { loadRole } from '../../../src/runtime/roles.js';
import type { LicenseFacts, LicenseGate } from '../../../src/services/config/licenses/license-gate.js';
import { createMediaComponent } from '../../../src/services/media/media.component.js';
import { CONSOLE_PASSWORD, startConsoleInstall, type ConsoleInstall } from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';
import { mediaFixtures } from '../../support/media-fixtures.js';
import { call, signInPlayer } from '../../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

/** A DISTRIBUTED licence with one slot of each type. */
const licence: LicenseGate = {
  refresh: async (): Promise<LicenseFacts> => ({
    state: 'ACTIVE',
    edition: 'DISTRIBUTED',
    maxStorageNodes: 1,
    maxPlayAgentNodes: 1,
    validUntil: null,
    graceUntil: null,
  }),
};

const EMBY_AUTH = 'MediaBrowser Client="Test", Device="Test", DeviceId="former-built-in", Version="1.0"';

/*
 * Spec, "Migration rules between forms", standalone to distributed: the former built-in nodes are installed on
 * target machines with their original ids, so media sources and user authorizations that name the ids survive.
 * The "built-in" processes here are a storage node and a play-agent run under the built-in ids with the service
 * token, as `svc standalone` runs them; the "target machine" runs them again with the node records' own registry
 * tokens, after the records were taken over in node management.
 */
describe.each(installBackends())('former built-in nodes after the edition upgrade on $label', (backend) => {
  let control: ConsoleInstall;
  const running: TestInstall[] = [];
  // The storage database follows the storage node (spec): both storage processes use this data folder.
  const storageData = mkdtempSync(path.join(tmpdir(), 'svc-former-storage-'));
  let libraryId = '';
  let itemsBefore = 0;
  let viewerId = '';

  const admin = <T = unknown>(method: string, route: string, body?: unknown) =>
    control.admin<T>(method, route, body);
  const nodes = async () => (await admin<ListNodesResponse>('GET', '/api/config/nodes')).body.nodes;
  const node = async (nodeId: string) => (await nodes()).find((entry) => entry.nodeId === nodeId)!;
  const configUrl = () => control.install.url('config');

  const startNode = async (role: 'storage' | 'play-agent', env: Record<string, string>) => {
    const started = await startTestInstall(await loadRole(role), backend.env, {
      topology: 'distributed',
      env: { SVC_CONFIG_BASE_URL: configUrl(), PLAY_AGENT_CONFIG_BASE_URL: configUrl(), ...env },
    });
    running.push(started);
    return started;
  };
  const stopNode = async (install: TestInstall) => {
    running.splice(running.indexOf(install), 1);
    await install.stop();
  };
  const itemCount = async () => {
    const answer = await admin<ListItemsResponse>('GET', `/api/media/libraries/${libraryId}/items`);
    expect(answer.status).toBe(200);
    return answer.body.total;
  };
  const scanned = async () =>
    waitFor(
      async () => {
        const state = await admin<{ scan: { state: string } | null }>(
          'GET',
          `/api/media/libraries/${libraryId}/scan`,
        );
        if (state.body.scan?.state === 'failed')
          throw new Error(`scan failed: ${JSON.stringify(state.body)}`);
        return state.body.scan?.state === 'succeeded' ? true : undefined;
      },
      120_000,
      250,
    );

  beforeAll(async () => {
    const fixtures = await mediaFixtures();
    control = await startConsoleInstall(backend.env, {
      config: { licenseGate: licence },
      extra: [createMediaComponent],
    });
    // STANDALONE: the built-in storage node runs under its id and holds a mount; a library's source names it.
    const builtInStorage = await startNode('storage', { SVC_DATA_DIR: storageData });
    await waitFor(
      async () => ((await node('node-local-storage')).status === 'ONLINE' ? true : undefined),
      60_000,
    );
    const mount = await admin<{ id: string }>('POST', '/api/storage/mounts', {
      name: 'fixtures',
      provider: 'local',
      config: { root: fixtures.library },
    });
    expect(mount.status).toBeLessThan(300);
    const library = await admin<{ id: string }>('POST', '/api/media/libraries', {
      name: 'Movies',
      type: 'movies',
      sources: [{ nodeId: 'node-local-storage', mountId: mount.body.id, path: '/Movies' }],
    });
    expect(library.status).toBe(201);
    libraryId = library.body.id;
    await scanned();
    itemsBefore = await itemCount();
    expect(itemsBefore).toBeGreaterThan(0);
    // A user authorized for the built-in play-agent only.
    viewerId = await control.createUser('viewer');
    const access = await admin('PUT', `/api/auth/admin/users/${viewerId}/node-access`, {
      mode: 'ALLOW_LIST',
      entries: [{ kind: 'node', id: 'node-local-play-agent' }],
    });
    expect(access.status).toBeLessThan(300);

    // The edition upgrade (its own tests: licenses.test.ts); then the standalone processes are stopped.
    await control.config.database.db
      .updateTable('deployment_state')
      .set({ edition: 'DISTRIBUTED' })
      .where('id', '=', 1)
      .execute();
    await stopNode(builtInStorage);
  }, 300_000);

  afterAll(async () => {
    for (const install of running.reverse()) await install.stop();
    await control?.stop();
    await backend.cleanup();
    rmSync(storageData, { recursive: true, force: true });
  });

  it(
    'shows the former built-in records as awaiting install on a target machine, not PENDING',
    { timeout: 300_000 },
    async () => {
      // The storage node's last heartbeat is recent: wait until the record would read offline (30 s).
      for (const nodeId of ['node-local-storage', 'node-local-play-agent']) {
        const view = await waitFor(
          async () => {
            const current = await node(nodeId);
            return current.status === 'ONLINE' ? undefined : current;
          },
          90_000,
          500,
        );
        expect(view).toMatchObject({ scope: 'EMBEDDED', status: 'AWAITING_INSTALL' });
      }
      const health = await admin<DashboardHealthResponse>('GET', '/api/config/dashboard/health');
      expect(health.body.counts.nodes.AWAITING_INSTALL).toBe(2);
      expect(health.body.counts.nodes.PENDING).toBe(0);
    },
  );

  it(
    'installs them on target machines under the same ids; sources and authorizations keep working',
    { timeout: 600_000 },
    async () => {
      const takeOver = async (body: Record<string, unknown>) => {
        const answer = await admin<CreateNodeResponse>('POST', '/api/config/nodes', body);
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        return answer.body;
      };
      // The built-in record's own token installs nothing (scope EMBEDDED): the take-over comes first.
      const builtInToken = (
        await control.config.database.db
          .selectFrom('nodes')
          .select('node_token')
          .where('node_id', '=', 'node-local-storage')
          .executeTakeFirstOrThrow()
      ).node_token;
      const beforeTakeOver = await request(`${configUrl()}/api/config/nodes/install/${builtInToken}/binary`);
      await beforeTakeOver.body.dump();
      expect(beforeTakeOver.statusCode).toBe(403);
      // The take-over exactly as `svc migrate distributed` prints it, the target machine's address filled in.
      const storage = await takeOver({
        ...takeOverRequest({ nodeId: 'node-local-storage', serviceType: 'svc-control-storage' }),
        expectedHost: '127.0.0.1',
      });
      expect(storage.node).toMatchObject({
        nodeId: 'node-local-storage',
        scope: 'EXTERNAL',
        status: 'PENDING',
      });
      expect(storage.credentials.installCommands.map((command) => command.kind)).toContain('binary');
      // The printed install command, with the new node token, serves the install script.
      const script = await request(
        `${configUrl()}/api/config/nodes/install/${storage.credentials.nodeToken!}/binary`,
      );
      expect(script.statusCode).toBe(200);
      expect(await script.body.text()).toContain('node-local-storage');
      expect(storage.credentials.registryToken).toMatch(/^svc_rt_/);
      const player = await takeOver({
        ...takeOverRequest({ nodeId: 'node-local-play-agent', serviceType: 'svc-play-agent' }),
        expectedHost: '127.0.0.1',
      });
      expect(player.node).toMatchObject({ scope: 'EXTERNAL', status: 'PENDING' });
      // Taking a record over claims a licence slot like any worker node; a second time the id is taken.
      expect((await admin<ListNodesResponse>('GET', '/api/config/nodes')).body.slotsUsed).toEqual({
        storage: 1,
        playAgent: 1,
      });
      const again = await admin('POST', '/api/config/nodes', {
        nodeId: 'node-local-storage',
        serviceType: 'svc-control-storage',
        name: 'Again',
        expectedHost: '127.0.0.1',
      });
      expect(again.status).toBe(409);
      expect(again.error?.code).toBe('NODE_ID_TAKEN');

      // The target machines: each node registers with its record's registry token (not the service token).
      await startNode('storage', {
        SVC_DATA_DIR: storageData,
        SVC_NODE_ID: 'node-local-storage',
        SVC_REGISTRY_TOKEN: storage.credentials.registryToken!,
      });
      const playAgent = await startNode('play-agent', {
        PLAY_AGENT_REGISTRY_TOKEN: player.credentials.registryToken!,
      });
      for (const nodeId of ['node-local-storage', 'node-local-play-agent']) {
        await waitFor(async () => ((await node(nodeId)).status === 'ONLINE' ? true : undefined), 60_000);
      }

      // The library's source names node-local-storage: a new full scan reads it through the new node.
      const rescan = await admin('POST', `/api/media/libraries/${libraryId}/scan`, { mode: 'full' });
      expect(rescan.status).toBe(202);
      await scanned();
      expect(await itemCount()).toBe(itemsBefore);

      // The viewer's authorization names node-local-play-agent: the route is offered and playback signs in there.
      const login = await control.api<{ accessToken: string }>('POST', '/api/auth/login', {
        body: { username: 'viewer', password: CONSOLE_PASSWORD, client: 'portal' },
      });
      const routes = await control.api<PlaybackRoutesResponse>('GET', '/api/config/me/playback-routes', {
        bearer: login.body.accessToken,
      });
      expect(routes.body.routes).toEqual([
        expect.objectContaining({ kind: 'node', id: 'node-local-play-agent', health: 'online' }),
      ]);
      const playAgentUrl = `http://127.0.0.1:${playAgent.context.settings.playAgent.listenPort}`;
      const viewer = await signInPlayer(playAgentUrl, EMBY_AUTH, {
        username: 'viewer',
        password: CONSOLE_PASSWORD,
      });
      const items = await call<{ Items: unknown[] }>(
        playAgentUrl,
        'GET',
        `/emby/Users/${viewer.userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
        { headers: { 'x-emby-token': viewer.token } },
      );
      expect(items.status).toBe(200);
      expect(items.body.Items.length).toBe(itemsBefore);
      const view: NodeView = await node('node-local-play-agent');
      expect(view.status).toBe('ONLINE');
    },
  );
});
