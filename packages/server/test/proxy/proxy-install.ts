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
  admin(method: string, route: string, body?: unknown): Promise<Answer>;
  createEndpoint(host: string): Promise<{ nodeId: string; endpointToken: string }>;
  regenerateEndpoint(nodeId: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startProxyInstall(): Promise<ProxyInstall> {
  let config: ConfigParts | undefined;
  const control = (await loadRole('standalone-control')).slice(1);
  const install = await startTestInstall(
    [
      configComponentFactory({ expose: (parts) => (config = parts) }),
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
  return {
    install,
    entrance,
    playAgent,
    adminToken,
    admin: (method, route, body) =>
      call(entrance, method, route, { headers: { 'x-admin-token': adminToken }, body }),
    createEndpoint: async (host) => {
      const created = await createManualEndpoint(config!.database.db, { name: host, host });
      return { nodeId: created.nodeId, endpointToken: created.endpointToken };
    },
    regenerateEndpoint: async (nodeId) =>
      (await regenerateEndpointToken(config!.database.db, nodeId)).endpointToken,
    stop: () => install.stop(),
  };
}
