import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { call, type Answer, type Json } from '../support/playback-install.js';
import { freePorts, portEnv, type PortEnv } from '../support/ports.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** A refusal of a field only an administrator may set, naming that field. */
function expectAdminOnly(answer: Answer<ErrorAnswer>, field: string): void {
  expect(answer.status, answer.text).toBe(403);
  expect(answer.body.error.code).toBe('ADMIN_ONLY_SETTING');
  expect(answer.body.error.details?.[0]?.path).toBe(`/${field}`);
}

/**
 * Server-side fetches of user-given URLs against the real standalone program, as a delegated account would
 * try them through the console entrance: the internal port needs the service token even from 127.0.0.1,
 * and only administrators may aim outbound webhooks, the manual-address probe or the metadata provider's
 * API key at private or other hosts.
 */
describe.each(installBackends())('server-side fetch guards on $label', (backend) => {
  let svc: SvcProcess;
  let dataDir: string;
  let env: PortEnv & Record<string, string>;
  let entrance: string;
  let internal: string;
  let serviceToken: string;
  const tokens: Record<'root' | 'settings' | 'node', string> = { root: '', settings: '', node: '' };

  const as = <T = Json>(who: keyof typeof tokens, method: string, route: string, body?: unknown) =>
    call<T>(entrance, method, route, { headers: { 'x-admin-token': tokens[who] }, body });
  const signIn = async (username: string, password: string) => {
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username, password, client: 'console' },
    });
    expect(login.status, login.text).toBe(200);
    return String(login.body.adminToken);
  };
  const delegate = async (username: string, permission: string) => {
    const created = await as('root', 'POST', '/api/auth/admin/users', {
      username,
      password: `${username}-password-1`,
      permissions: [permission],
    });
    expect(created.status, created.text).toBe(201);
    return signIn(username, `${username}-password-1`);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-guards-'));
    env = { ...(await portEnv()), ...backend.env, SVC_DATA_DIR: dataDir };
    svc = runSvc(['standalone'], env);
    await svc.waitForLog(/standalone edition is up/, 180_000);
    entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
    internal = `http://127.0.0.1:${env.SVC_INTERNAL_PORT}`;
    serviceToken = readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8').trim();
    const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'root', password: 'root-password-1' },
    });
    expect(setup.status, setup.text).toBe(201);
    tokens.root = await signIn('root', 'root-password-1');
    tokens.settings = await delegate('settings-only', 'settings');
    tokens.node = await delegate('node-only', 'node');
  }, 240_000);

  afterAll(async () => {
    if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
      svc.child.kill('SIGINT');
      await svc.exited;
    }
    for (const pid of svc?.childPids() ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await backend.cleanup();
  });

  it('answers 401 on the internal port without the service token, even from 127.0.0.1, and works with it', async () => {
    const listed = await call(internal, 'GET', '/internal/tasks');
    expect(listed.status).toBe(401);
    expect(listed.text).not.toContain('registry.prune');
    expect((await call(internal, 'POST', '/internal/tasks/registry.prune/run')).status).toBe(401);
    expect((await call(internal, 'GET', '/internal/cache')).status).toBe(401);
    expect((await call(internal, 'GET', '/health')).status).toBe(200);

    const withToken = { headers: { 'x-svc-service-token': serviceToken } };
    const tasks = await call<{ tasks: { name: string }[] }>(internal, 'GET', '/internal/tasks', withToken);
    expect(tasks.status).toBe(200);
    expect(tasks.body.tasks.map((task) => task.name)).toContain('registry.prune');
    const run = await call(internal, 'POST', '/internal/tasks/registry.prune/run', withToken);
    expect(run.body).toEqual({ result: 'ran' });
  });

  it('refuses a settings delegate an outbound webhook into the internal port, and an allowed one to keep or test', async () => {
    const tasksUrl = `${internal}/internal/tasks`;
    for (const body of [
      { name: 'Read tasks', method: 'GET', url: tasksUrl, allowPrivateNetwork: true },
      { name: 'Run a task', url: `${tasksUrl}/registry.prune/run`, allowPrivateNetwork: true },
    ]) {
      expectAdminOnly(
        await as<ErrorAnswer>('settings', 'POST', '/api/media/outbound-webhooks', body),
        'allowPrivateNetwork',
      );
    }
    // Without the allowance a loopback URL is no public address.
    const plain = await as<ErrorAnswer>('settings', 'POST', '/api/media/outbound-webhooks', {
      name: 'Read tasks',
      method: 'GET',
      url: tasksUrl,
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error.details?.[0]?.path).toBe('/url');

    // An administrator may allow it, yet the internal port still answers nothing without the token.
    const allowed = await as<{ id: string }>('root', 'POST', '/api/media/outbound-webhooks', {
      name: 'Allowed by root',
      method: 'GET',
      url: tasksUrl,
      allowPrivateNetwork: true,
    });
    expect(allowed.status, allowed.text).toBe(201);
    const route = `/api/media/outbound-webhooks/${allowed.body.id}`;
    const test = await as<{ httpStatus: number | null; responseExcerpt: string | null }>(
      'root',
      'POST',
      `${route}/test`,
    );
    expect(test.body.httpStatus).toBe(401);
    expect(test.body.responseExcerpt ?? '').not.toContain('registry.prune');

    expectAdminOnly(
      await as<ErrorAnswer>('settings', 'PUT', route, { name: 'Renamed by a delegate' }),
      'allowPrivateNetwork',
    );
    expectAdminOnly(await as<ErrorAnswer>('settings', 'POST', `${route}/test`), 'allowPrivateNetwork');
    const kept = await as<{ endpoints: { name: string; allowPrivateNetwork: boolean }[] }>(
      'root',
      'GET',
      '/api/media/outbound-webhooks',
    );
    expect(kept.body.endpoints).toEqual([
      expect.objectContaining({ name: 'Allowed by root', allowPrivateNetwork: true }),
    ]);
    expect((await as('root', 'DELETE', route)).status).toBe(204);
  });

  it('refuses a node delegate a manual address on a loopback host, and says only "not reachable" of a failed probe', async () => {
    const manual = (nodeId: string, host: string, port: number) => ({
      serviceType: 'manual-play-agent-endpoint',
      nodeId,
      name: nodeId,
      externalAddress: { host, port },
    });
    const internalPort = Number(env.SVC_INTERNAL_PORT);
    for (const host of ['127.0.0.1', 'localhost', '169.254.169.254']) {
      expectAdminOnly(
        await as<ErrorAnswer>(
          'node',
          'POST',
          '/api/config/nodes',
          manual('node-scan-one', host, internalPort),
        ),
        'externalAddress/host',
      );
    }
    // A host that is not inside is the delegate's to set; moving it inside is not.
    const outside = await as(
      'node',
      'POST',
      '/api/config/nodes',
      manual('node-outside', 'play.example.invalid', 443),
    );
    expect(outside.status, outside.text).toBe(201);
    expectAdminOnly(
      await as<ErrorAnswer>('node', 'PATCH', '/api/config/nodes/node-outside', {
        externalAddress: { protocol: 'https', host: '127.0.0.1', port: internalPort },
      }),
      'externalAddress/host',
    );

    // An administrator's addresses on loopback: a plain-HTTP port and a closed one read the same.
    const [closedPort] = await freePorts(1);
    for (const [nodeId, port] of [
      ['node-loopback-http', internalPort],
      ['node-loopback-closed', closedPort!],
    ] as const) {
      const created = await as('root', 'POST', '/api/config/nodes', manual(nodeId, '127.0.0.1', port));
      expect(created.status, created.text).toBe(201);
    }
    const run = await call(internal, 'POST', '/internal/tasks/nodes.manual-health/run', {
      headers: { 'x-svc-service-token': serviceToken },
    });
    expect(run.status, run.text).toBe(200);
    for (const nodeId of ['node-loopback-http', 'node-loopback-closed', 'node-outside']) {
      const node = await as<{ probe: { state: string; detail: string } | null }>(
        'node',
        'GET',
        `/api/config/nodes/${nodeId}`,
      );
      expect(node.body.probe, nodeId).toEqual(
        expect.objectContaining({ state: 'offline', detail: 'not reachable' }),
      );
    }
  });

  it("refuses a settings delegate to send the metadata provider's API key to another host", async () => {
    const configured = await as('root', 'PUT', '/api/media/settings/metadata-provider', {
      enabled: false,
      baseUrl: 'https://api.themoviedb.org/3',
      apiKey: 'admin-configured-api-key-0123',
    });
    expect(configured.status, configured.text).toBe(200);
    expectAdminOnly(
      await as<ErrorAnswer>('settings', 'PUT', '/api/media/settings/metadata-provider', {
        enabled: false,
        baseUrl: `${internal}/internal/tasks`,
      }),
      'baseUrl',
    );
    // The rest stays the delegate's to change.
    const language = await as('settings', 'PUT', '/api/media/settings/metadata-provider', {
      enabled: false,
      baseUrl: 'https://api.themoviedb.org/3',
      language: 'en-US',
    });
    expect(language.status, language.text).toBe(200);
    expect(language.body).toMatchObject({ baseUrl: 'https://api.themoviedb.org/3', language: 'en-US' });
  });
});
