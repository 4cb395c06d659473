import type { NodeView } from '@svc/contracts';
import { request } from 'undici';
import { probeDispatcher, type ProbeClientOptions } from '../../src/doctor/http-probe.js';
import { configComponentFactory, type ConfigParts } from '../../src/services/config/config.component.js';
import {
  createManualEndpoint,
  regenerateEndpointToken,
} from '../../src/services/config/nodes/manual-endpoints.repository.js';
import { loadRole } from '../../src/runtime/roles.js';
import { call, type Answer } from '../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../support/runtime.js';

/** The control plane and the play-agent in this process (no library): what a proxy sits in front of. */
export interface ProxyInstall {
  install: TestInstall;
  entrance: string;
  playAgent: string;
  adminToken: string;
  config: ConfigParts;
  admin(method: string, route: string, body?: unknown): Promise<Answer>;
  /** A console account (role user) with the given permissions, signed in: its admin token. */
  userToken(username: string, permissions: string[]): Promise<string>;
  createEndpoint(host: string, port: number): Promise<{ nodeId: string; endpointToken: string }>;
  /** Runs a task of the install now (e.g. `nodes.manual-health`, the manual addresses' /health probe). */
  runTask(name: string): Promise<void>;
  node(nodeId: string): Promise<NodeView>;
  regenerateEndpoint(nodeId: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * `client` is how the application reaches the test's proxy (its CA, the test names on loopback): for the
 * manual addresses' /health probe and the Diagnostics page's probes.
 */
export async function startProxyInstall(client: ProbeClientOptions): Promise<ProxyInstall> {
  let config: ConfigParts | undefined;
  const control = (await loadRole('standalone-control')).slice(1);
  const install = await startTestInstall(
    [
      configComponentFactory({
        expose: (parts) => (config = parts),
        probeDispatcher: probeDispatcher(client),
        diagnosticsClient: client,
      }),
      ...control,
      ...(await loadRole('storage')),
      ...(await loadRole('play-agent')),
    ],
    { SVC_DB_MODE: 'bundled' },
  );
  const entrance = install.url('frontend');
  const playAgent = `http://127.0.0.1:${install.context.settings.playAgent.listenPort}`;
  await waitFor(async () =>
    (await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
  );
  const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
    body: { username: 'root', password: 'root-password-1' },
  });
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.text}`);
  const login = await call(entrance, 'POST', '/api/auth/login', {
    body: { username: 'root', password: 'root-password-1', client: 'console' },
  });
  const adminToken = String(login.body.adminToken);
  // The built-in nodes are PENDING until their first heartbeat, which the doctor would rightly report.
  await waitFor(async () => {
    const nodes = await call(entrance, 'GET', '/api/config/nodes', {
      headers: { 'x-admin-token': adminToken },
    });
    const list = (nodes.body.nodes ?? []) as { status: string }[];

    return list.length >= 2 && list.every((node) => node.status === 'ONLINE') ? true : undefined;
  }, 60_000);
  const admin = (method: string, route: string, body?: unknown) =>
    call(entrance, method, route, { headers: { 'x-admin-token': adminToken }, body });
  return {
    install,
    entrance,
    playAgent,
    adminToken,
    config: config!,
    admin,
    userToken: async (username, permissions) => {
      const password = 'user-password-1';
      const created = await admin('POST', '/api/auth/admin/users', { username, password, permissions });
      if (created.status !== 201) throw new Error(`user ${username}: ${created.text}`);
      const signedIn = await call(entrance, 'POST', '/api/auth/login', {
        body: { username, password, client: 'console' },
      });
      return String(signedIn.body.adminToken);
    },
    createEndpoint: async (host, port) => {
      const created = await createManualEndpoint(config!.database.db, { name: host, host, port });
      return { nodeId: created.nodeId, endpointToken: created.endpointToken };
    },
    runTask: async (name) => {
      const answer = await request(`${install.url('internal')}/internal/tasks/${name}/run`, {
        method: 'POST',
        headers: { 'x-svc-service-token': install.context.serviceToken },
      });
      const text = await answer.body.text();
      if (answer.statusCode >= 300) throw new Error(`task ${name}: ${answer.statusCode} ${text}`);
    },
    node: async (nodeId) => {
      const answer = await admin('GET', `/api/config/nodes/${nodeId}`);
      if (answer.status !== 200) throw new Error(`node ${nodeId}: ${answer.text}`);
      return answer.body as unknown as NodeView;
    },
    regenerateEndpoint: async (nodeId) =>
      (await regenerateEndpointToken(config!.database.db, nodeId)).endpointToken,
    stop: () => install.stop(),
  };
}
