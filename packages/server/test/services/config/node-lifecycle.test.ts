// Remote upgrade and uninstall: the node route POST /api/node/lifecycle (service token only, NODE_NOT_INSTALLED
// without install settings) and the control side's refusals (built-in node, manual address, not ONLINE, a node
// that refuses). The whole path with a real node is in test/e2e/node-install.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeLifecycleAction } from '@svc/contracts';
import { createServer, type AppServer } from '../../../src/platform/http/create-server.js';
import { AppError } from '../../../src/platform/http/errors.js';
import { createLogger } from '../../../src/platform/logger.js';
import type { NodeInstallSettings } from '../../../src/platform/settings.js';
import { loadSettings } from '../../../src/platform/settings.js';
import {
  HttpNodeLifecycleSender,
  type LifecycleSendResult,
  type NodeLifecycleSender,
} from '../../../src/services/config/nodes/node-lifecycle.client.js';
import { NodeLifecycleService } from '../../../src/services/config/nodes/node-lifecycle.service.js';
import type { NodeRow } from '../../../src/services/config/nodes/node-rows.js';
import type { NodesRepository } from '../../../src/services/config/nodes/nodes.repository.js';
import {
  registerNodeLifecycleRoutes,
  type LifecycleCommand,
} from '../../../src/services/shared/node-lifecycle.routes.js';

const SERVICE_TOKEN = 'svc_st_lifecycle_test_token_0123456789abcdef';
const NODE_TOKEN = 'svc_nt_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const logger = createLogger({ level: 'silent', component: 'test' });
const folder = mkdtempSync(path.join(tmpdir(), 'svc-node-lifecycle-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A node listener with the lifecycle route; the runner and fetcher record what they were given. */
function nodeApp(install: NodeInstallSettings | undefined, fetchFails = false) {
  const runs: { command: LifecycleCommand; script: string }[] = [];
  const fetched: string[] = [];
  const app = createServer({
    allowUndeclaredRoutes: true,
    component: 'play-agent',
    logger,
    serviceToken: SERVICE_TOKEN,
  });
  registerNodeLifecycleRoutes(app, {
    install,
    configBaseUrl: 'http://config.example:18085/',
    dataDir: path.join(folder, 'data'),
    fetch: async (url) => {
      fetched.push(url);
      if (fetchFails) throw new Error('the config service answered HTTP 404');
      return '#!/usr/bin/env bash\nmain() { :; }\nmain "$@"\n';
    },
    run: (command, script) => void runs.push({ command, script }),
  });
  return { app, runs, fetched };
}

const post = (app: AppServer, body: unknown, token = SERVICE_TOKEN) =>
  app.inject({
    method: 'POST',
    url: '/api/node/lifecycle',
    headers: token ? { 'x-svc-service-token': token } : {},
    payload: body as Record<string, unknown>,
  });

describe('node side: POST /api/node/lifecycle', () => {
  const installed: NodeInstallSettings = {
    nodeToken: NODE_TOKEN,
    workDir: folder,
    form: 'binary',
    ffmpeg: false,
  };

  it('needs the service token', async () => {
    const { app, runs } = nodeApp(installed);
    expect((await post(app, { action: 'upgrade' }, '')).statusCode).toBe(401);
    expect(
      (await post(app, { action: 'upgrade' }, 'svc_st_wrong_token_0123456789abcdefghijkl')).statusCode,
    ).toBe(403);
    expect(runs).toEqual([]);
    await app.close();
  });

  it('answers 409 NODE_NOT_INSTALLED and runs nothing without install settings', async () => {
    const { app, runs, fetched } = nodeApp(undefined);
    const answer = await post(app, { action: 'uninstall' });
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toMatchObject({ error: { code: 'NODE_NOT_INSTALLED' } });
    expect(runs).toEqual([]);
    expect(fetched).toEqual([]);
    await app.close();
  });

  it('refuses an unknown action', async () => {
    const { app, runs } = nodeApp(installed);
    expect((await post(app, { action: 'reboot' })).statusCode).toBe(400);
    expect(runs).toEqual([]);
    await app.close();
  });

  it('fetches upgrade-binary and runs it with the work directory, answering 202', async () => {
    const { app, runs, fetched } = nodeApp(installed);
    const answer = await post(app, { action: 'upgrade' });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({
      action: 'upgrade',
      accepted: true,
      log: path.join(folder, 'log', 'lifecycle.log'),
    });
    const url = `http://config.example:18085/api/config/nodes/install/${NODE_TOKEN}/upgrade-binary`;
    expect(fetched).toEqual([url]);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.command).toMatchObject({ action: 'upgrade', kind: 'upgrade-binary', url });
    expect(runs[0]!.command.env).toMatchObject({
      SVC_NODE_WORK_DIR: folder,
      SVC_CONFIG_BASE_URL: 'http://config.example:18085',
    });
    expect(runs[0]!.script).toContain('main "$@"');
    await app.close();
  });

  it('uses upgrade-docker for container installs, keeps ffmpeg, and uninstall for both', async () => {
    const { app, runs } = nodeApp({ ...installed, form: 'docker', ffmpeg: true });
    expect((await post(app, { action: 'upgrade' })).statusCode).toBe(202);
    expect((await post(app, { action: 'uninstall' })).statusCode).toBe(202);
    expect(runs.map((run) => run.command.url)).toEqual([
      `http://config.example:18085/api/config/nodes/install/${NODE_TOKEN}/upgrade-docker?ffmpeg=true`,
      `http://config.example:18085/api/config/nodes/install/${NODE_TOKEN}/uninstall`,
    ]);
    await app.close();
  });

  it('answers 502 and runs nothing when the script cannot be fetched', async () => {
    const { app, runs } = nodeApp(installed, true);
    const answer = await post(app, { action: 'upgrade' });
    expect(answer.statusCode).toBe(502);
    expect(answer.json()).toMatchObject({ error: { code: 'NODE_LIFECYCLE_FAILED' } });
    expect(runs).toEqual([]);
    await app.close();
  });

  it('reads the install settings only when all three are set', () => {
    const base = { SVC_DATA_DIR: folder };
    expect(loadSettings(base).nodeInstall).toBeUndefined();
    expect(loadSettings({ ...base, SVC_NODE_TOKEN: NODE_TOKEN, SVC_NODE_WORK_DIR: folder }).nodeInstall).toBe(
      undefined,
    );
    expect(
      loadSettings({
        ...base,
        SVC_NODE_TOKEN: NODE_TOKEN,
        SVC_NODE_WORK_DIR: folder,
        SVC_NODE_INSTALL_FORM: 'docker',
        SVC_NODE_FFMPEG: '1',
      }).nodeInstall,
    ).toEqual({ nodeToken: NODE_TOKEN, workDir: folder, form: 'docker', ffmpeg: true });
    expect(() =>
      loadSettings({
        ...base,
        SVC_NODE_TOKEN: NODE_TOKEN,
        SVC_NODE_WORK_DIR: folder,
        SVC_NODE_INSTALL_FORM: 'rpm',
      }),
    ).toThrow(/SVC_NODE_INSTALL_FORM/);
  });
});

// ---- control side ----------------------------------------------------------------------------------------

const NOW = Date.parse('2026-11-22T04:00:00Z');

function row(nodeId: string, overrides: Partial<NodeRow>): NodeRow {
  return {
    node_id: nodeId,
    service_type: 'svc-play-agent',
    name: nodeId,
    scope: 'EXTERNAL',
    status: 'ONLINE',
    created_at: new Date(NOW - 3_600_000),
    updated_at: new Date(NOW - 3_600_000),
    node_token: NODE_TOKEN,
    registry_token: 'svc_rt_x',
    endpoint_token: null,
    last_heartbeat_at: new Date(NOW - 5_000),
    listen_port: 19090,
    expected_host: '127.0.0.1',
    expected_port: null,
    note: '',
    external_protocol: null,
    external_host: null,
    external_port: null,
    disabled: false,
    health_status: null,
    health_checked_at: null,
    health_detail: null,
    ...overrides,
  };
}

const rows: Record<string, NodeRow> = {
  'node-builtin': row('node-builtin', { scope: 'EMBEDDED' }),
  'node-manual': row('node-manual', {
    service_type: 'manual-play-agent-endpoint',
    node_token: null,
    registry_token: null,
    endpoint_token: 'svc_ept_x',
    external_protocol: 'https',
    external_host: 'play.example',
    health_status: 'online',
  }),
  'node-pending': row('node-pending', { status: 'PENDING', last_heartbeat_at: null }),
  'node-stale': row('node-stale', { last_heartbeat_at: new Date(NOW - 24 * 3_600_000) }),
  'node-disabled': row('node-disabled', { disabled: true }),
  'node-online': row('node-online', {}),
  'node-refusing': row('node-refusing', {}),
};

class FakeSender implements NodeLifecycleSender {
  calls: [string, NodeLifecycleAction][] = [];
  async send(nodeId: string, action: NodeLifecycleAction): Promise<LifecycleSendResult> {
    this.calls.push([nodeId, action]);
    if (nodeId === 'node-refusing') {
      return {
        sent: false,
        reason: 'refused',
        baseUrl: 'http://127.0.0.1:19091',
        detail: 'HTTP 409 NODE_NOT_INSTALLED',
      };
    }
    return { sent: true, baseUrl: 'http://127.0.0.1:19090' };
  }
}

function service(sender: NodeLifecycleSender | undefined) {
  const removals: { node: string; result: string }[] = [];
  const nodes = {
    get: async (nodeId: string) => rows[nodeId],
    deleteWithRemoval: async (nodeId: string, removal: { uninstall_result: string }) => {
      removals.push({ node: nodeId, result: removal.uninstall_result });
      return true;
    },
  } as unknown as NodesRepository;
  const management = new NodeLifecycleService({
    nodes,
    clock: { now: () => NOW },
    lifecycle: sender,
  });
  return { management, removals };
}

async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof AppError) return { status: error.statusCode, code: error.code };
    throw error;
  }
  throw new Error('not refused');
}

describe('control side: POST /api/config/nodes/:nodeId/upgrade and /uninstall', () => {
  it('refuses built-in nodes, manual addresses and nodes that are not ONLINE, sending nothing', async () => {
    const sender = new FakeSender();
    const { management } = service(sender);
    for (const action of ['upgrade', 'uninstall'] as const) {
      expect(await refusal(management.lifecycle('node-builtin', action))).toEqual({
        status: 409,
        code: 'NODE_EMBEDDED',
      });
      expect(await refusal(management.lifecycle('node-manual', action))).toEqual({
        status: 409,
        code: 'NODE_MANUAL_ADDRESS',
      });
      expect(await refusal(management.lifecycle('node-pending', action))).toEqual({
        status: 409,
        code: 'NODE_UNREACHABLE',
      });
      expect(await refusal(management.lifecycle('node-stale', action))).toEqual({
        status: 409,
        code: 'NODE_UNREACHABLE',
      });
      expect(await refusal(management.lifecycle('node-missing', action))).toMatchObject({ status: 404 });
    }
    expect(await refusal(management.lifecycle('node-disabled', 'upgrade'))).toEqual({
      status: 409,
      code: 'NODE_DISABLED',
    });
    expect(sender.calls).toEqual([]);
  });

  it('sends the command to an ONLINE worker node, and answers 502 when the node refuses', async () => {
    const sender = new FakeSender();
    const { management } = service(sender);
    expect(await management.lifecycle('node-online', 'upgrade')).toEqual({
      nodeId: 'node-online',
      action: 'upgrade',
      accepted: true,
    });
    expect(await refusal(management.lifecycle('node-refusing', 'uninstall'))).toEqual({
      status: 502,
      code: 'NODE_LIFECYCLE_FAILED',
    });
    expect(sender.calls).toEqual([
      ['node-online', 'upgrade'],
      ['node-refusing', 'uninstall'],
    ]);
  });

  it('DELETE with sendUninstall: sent to an ONLINE node, not-sent when refused or without a sender', async () => {
    const sender = new FakeSender();
    const { management, removals } = service(sender);
    expect((await management.remove('node-online', true, null)).uninstall).toBe('sent');
    expect((await management.remove('node-refusing', true, null)).uninstall).toBe('not-sent');
    expect((await management.remove('node-pending', true, null)).uninstall).toBe('unreachable');
    expect((await management.remove('node-manual', true, null)).uninstall).toBe('not-applicable');
    expect((await management.remove('node-online', false, null)).uninstall).toBe('not-requested');
    expect((await service(undefined).management.remove('node-online', true, null)).uninstall).toBe(
      'not-sent',
    );
    expect(removals.map((removal) => removal.result)).toEqual([
      'sent',
      'not-sent',
      'unreachable',
      'not-applicable',
      'not-requested',
    ]);
    expect(sender.calls).toEqual([
      ['node-online', 'uninstall'],
      ['node-refusing', 'uninstall'],
    ]);
  });
});

describe('HttpNodeLifecycleSender against a node listener', () => {
  let node: ReturnType<typeof nodeApp>;
  let notInstalled: ReturnType<typeof nodeApp>;
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    node = nodeApp({ nodeToken: NODE_TOKEN, workDir: folder, form: 'binary', ffmpeg: false });
    notInstalled = nodeApp(undefined);
    for (const [name, app] of [
      ['installed', node.app],
      ['plain', notInstalled.app],
    ] as const) {
      await app.listen({ host: '127.0.0.1', port: 0 });
      urls[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }
  });

  afterAll(async () => {
    await node.app.close();
    await notInstalled.app.close();
  });

  it('calls the registered address with the service token', async () => {
    const addresses: Record<string, string> = { a: urls.installed!, b: urls.plain! };
    const sender = new HttpNodeLifecycleSender(async (nodeId) => addresses[nodeId], SERVICE_TOKEN);
    expect(await sender.send('a', 'upgrade')).toEqual({ sent: true, baseUrl: urls.installed });
    expect(node.runs.map((run) => run.command.kind)).toEqual(['upgrade-binary']);
    const refused = await sender.send('b', 'uninstall');
    expect(refused).toMatchObject({ sent: false, reason: 'refused' });
    expect(refused.sent === false && refused.reason === 'refused' ? refused.detail : '').toContain(
      'NODE_NOT_INSTALLED',
    );
    expect(await sender.send('c', 'upgrade')).toEqual({ sent: false, reason: 'no-address' });
    const wrongToken = new HttpNodeLifecycleSender(
      async () => urls.installed,
      'svc_st_wrong_token_0123456789abcdefghijkl',
    );
    expect(await wrongToken.send('a', 'upgrade')).toMatchObject({ sent: false, reason: 'refused' });
    expect(node.runs).toHaveLength(1);
  });
});
