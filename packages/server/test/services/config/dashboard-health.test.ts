import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardHealthResponse, ListNodesResponse } from '@svc/contracts';
import type { ConfigParts } from '../../../src/services/config/config.component.js';
import { startConsoleInstall, type ConsoleInstall } from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';
import { waitFor, type TestInstall } from '../../support/runtime.js';

const STORAGE = 'node-local-storage';
const PLAY_AGENT = 'node-local-play-agent';

describe.each(installBackends())('dashboard health of the config service on $label', (backend) => {
  let control: ConsoleInstall;
  let install: TestInstall;
  let parts: ConfigParts;
  let adminToken: string;
  let dashboardToken: string;

  const api = <T = unknown>(method: string, route: string, admin?: string, body?: unknown) =>
    control.api<T>(method, route, { admin, body });
  const consoleLogin = (username: string) => control.login(username, 'console');
  const createUser = async (username: string, permissions: string[]) => {
    await control.createUser(username, { permissions });
  };
  const health = async () => {
    const answer = await api<DashboardHealthResponse>('GET', '/api/config/dashboard/health', dashboardToken);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  /** A registration heartbeat with the service token, as a control component or a built-in node sends it. */
  const heartbeat = async (service: string, instanceId: string, nodeId: string | null, baseUrl: string) => {
    const answer = await control.internal('config', 'POST', '/api/config/registry/instances', {
      service,
      instanceId,
      nodeId,
      baseUrl,
    });
    expect(answer.status).toBe(204);
  };

  beforeAll(async () => {
    control = await startConsoleInstall(backend.env);
    ({ install, config: parts, adminToken } = control);
    await createUser('dash.viewer', ['dashboard']);
    dashboardToken = await consoleLogin('dash.viewer');
  });

  afterAll(async () => {
    await control?.stop();
    await backend.cleanup();
  });

  it('requires a console account holding `dashboard`', async () => {
    expect((await api('GET', '/api/config/dashboard/health')).status).toBe(401);
    await createUser('node.admin', ['node', 'settings', 'user']);
    const refused = await api('GET', '/api/config/dashboard/health', await consoleLogin('node.admin'));
    expect(refused).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } });
    expect((await api('GET', '/api/config/dashboard/health', adminToken)).status).toBe(200);
  });

  it('lists the registered listeners as up, and the built-in nodes as PENDING before any heartbeat', async () => {
    // The user service, the gateway and the frontend of this install register themselves at start.
    const first = await waitFor(async () => {
      const answer = await health();
      const services = new Set<string>(answer.instances.map((instance) => instance.service));
      return ['svc-user', 'svc-gateway', 'svc-frontend'].every((s) => services.has(s)) ? answer : undefined;
    });
    for (const instance of first.instances) {
      expect(instance.status).toBe('up');
      expect(Date.parse(first.checkedAt) - Date.parse(instance.lastHeartbeatAt)).toBeLessThanOrEqual(30_000);
    }
    const user = first.instances.find((instance) => instance.service === 'svc-user')!;
    expect(user).toMatchObject({ nodeId: null, baseUrl: install.url('user') });
    expect(first.counts.instances).toEqual({ up: first.instances.length, down: 0 });

    expect(first.nodes.map((node) => node.nodeId).sort()).toEqual([PLAY_AGENT, STORAGE]);
    for (const node of first.nodes) {
      expect(node).toMatchObject({
        status: 'PENDING',
        lastHeartbeatAt: null,
        disabled: false,
        scope: 'EMBEDDED',
      });
    }
    expect(first.counts.nodes).toEqual({ PENDING: 2, ONLINE: 0, offline: 0, AWAITING_INSTALL: 0 });
  });

  it('shows heartbeats, stale instances and offline nodes as the registry and the node list see them', async () => {
    // The built-in play-agent sends its heartbeat: its node turns ONLINE and its listener appears.
    await heartbeat('svc-play-agent', 'play-agent-1', PLAY_AGENT, 'http://127.0.0.1:19999');
    // The built-in storage node was ONLINE, but its last heartbeat is two minutes old: offline.
    const now = Date.now();
    await parts.database.db
      .updateTable('nodes')
      .set({ status: 'ONLINE', last_heartbeat_at: new Date(now - 2 * 60 * 1000) })
      .where('node_id', '=', STORAGE)
      .execute();
    // A media instance that stopped 5 minutes ago (down), and one gone for two days (pruned soon, not shown).
    await parts.database.db
      .insertInto('service_instances')
      .values([
        {
          service: 'svc-media',
          instance_id: 'media-stopped',
          node_id: null,
          base_url: 'http://10.0.0.5:18083',
          last_seen_at: new Date(now - 5 * 60 * 1000),
        },
        {
          service: 'svc-media',
          instance_id: 'media-ancient',
          node_id: null,
          base_url: 'http://10.0.0.6:18083',
          last_seen_at: new Date(now - 2 * 24 * 60 * 60 * 1000),
        },
      ])
      .execute();
    // The play-agent gets an external address: the dashboard shows it.
    const patched = await api('PATCH', `/api/config/nodes/${PLAY_AGENT}`, adminToken, {
      externalAddress: { protocol: 'https', host: 'play.example.com', port: null },
    });
    expect(patched.status).toBe(200);

    const answer = await health();
    const byId = new Map(answer.instances.map((instance) => [instance.instanceId, instance]));
    expect(byId.get('play-agent-1')).toMatchObject({
      service: 'svc-play-agent',
      nodeId: PLAY_AGENT,
      baseUrl: 'http://127.0.0.1:19999',
      status: 'up',
    });
    expect(byId.get('media-stopped')).toMatchObject({
      service: 'svc-media',
      status: 'down',
      lastHeartbeatAt: new Date(now - 5 * 60 * 1000).toISOString(),
    });
    expect(byId.has('media-ancient')).toBe(false);
    const down = answer.instances.filter((instance) => instance.status === 'down');
    expect(down.map((instance) => instance.instanceId)).toEqual(['media-stopped']);
    expect(answer.counts.instances).toEqual({ up: answer.instances.length - 1, down: 1 });
    // Ordered by service, then instance id.
    const keys = answer.instances.map((instance) => `${instance.service} ${instance.instanceId}`);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));

    const nodes = new Map(answer.nodes.map((node) => [node.nodeId, node]));
    expect(nodes.get(PLAY_AGENT)).toMatchObject({
      name: 'Built-in play-agent',
      serviceType: 'svc-play-agent',
      status: 'ONLINE',
      externalAddress: {
        protocol: 'https',
        host: 'play.example.com',
        port: null,
        url: 'https://play.example.com',
      },
    });
    expect(Date.parse(nodes.get(PLAY_AGENT)!.lastHeartbeatAt!)).toBeGreaterThanOrEqual(now - 5_000);
    expect(nodes.get(STORAGE)).toMatchObject({
      serviceType: 'svc-control-storage',
      status: 'offline',
      lastHeartbeatAt: new Date(now - 2 * 60 * 1000).toISOString(),
      externalAddress: null,
    });
    expect(answer.counts.nodes).toEqual({ PENDING: 0, ONLINE: 1, offline: 1, AWAITING_INSTALL: 0 });

    // The same statuses as the node list (permission `node`) shows.
    const list = await api<ListNodesResponse>('GET', '/api/config/nodes', adminToken);
    expect(answer.nodes.map((node) => [node.nodeId, node.status])).toEqual(
      list.body.nodes.map((node) => [node.nodeId, node.status]),
    );
    // No token of any kind in the answer.
    expect(JSON.stringify(answer)).not.toMatch(/svc_(nt|rt|ept)_/);
  });
});
