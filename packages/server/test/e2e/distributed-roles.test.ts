import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { installBackends } from '../support/install-backends.js';
import { portEnv } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { runSvc, type SvcProcess } from '../support/svc-process.js';

const processes: SvcProcess[] = [];
const folders: string[] = [];

afterAll(async () => {
  for (const svc of processes) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
    await svc.exited;
  }
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe.each(installBackends())('distributed roles as separate processes on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it(
    'control, user, media, edge and both worker nodes find each other through the registry',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-roles-'));
      folders.push(dataDir);
      const env = {
        ...(await portEnv()),
        ...backend.env,
        SVC_DATA_DIR: dataDir,
        SVC_SERVICE_TOKEN: 'svc_st_distributed_test_token_0123456789abcdef',
        SVC_BIND_HOST: '127.0.0.1',
        SVC_PLAY_AGENT_BIND_HOST: '127.0.0.1',
      };
      const start = (args: string[], extra: Record<string, string> = {}) => {
        const svc = runSvc(args, { ...env, ...extra });
        processes.push(svc);
        return svc;
      };
      const roles = [
        start(['role', 'control']),
        start(['role', 'user']),
        start(['role', 'media']),
        start(['role', 'edge']),
        start(['node', 'storage'], { SVC_NODE_ID: 'node-storage-one' }),
        start(['node', 'play-agent'], { SVC_NODE_ID: 'node-player-one' }),
      ];
      await Promise.all(roles.map((svc) => svc.waitForLog(/"msg":"ready"/)));

      const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
      const capabilities = await request(`${entrance}/api/config/deployment/capabilities`);
      expect(capabilities.statusCode).toBe(200);
      await capabilities.body.dump();

      // The registry learns every role's address from its heartbeat.
      const instances = await waitFor(async () => {
        const response = await request(
          `http://127.0.0.1:${env.SVC_CONFIG_PORT}/api/config/registry/instances`,
          {
            headers: { 'x-svc-service-token': env.SVC_SERVICE_TOKEN },
          },
        );
        const body = (await response.body.json()) as {
          instances: { service: string; nodeId: string | null }[];
        };
        const services = new Set(body.instances.map((instance) => instance.service));
        return [
          'svc-user',
          'svc-media',
          'svc-gateway',
          'svc-frontend',
          'svc-control-storage',
          'svc-play-agent',
        ].every((service) => services.has(service))
          ? body.instances
          : undefined;
      }, 20_000);
      expect(instances.find((instance) => instance.service === 'svc-play-agent')?.nodeId).toBe(
        'node-player-one',
      );

      // With one storage node registered the gateway routes to it; a named unknown node is refused.
      const viaGateway = await request(`${entrance}/api/storage/ping`);
      expect(viaGateway.statusCode).toBe(200);
      expect(await viaGateway.body.json()).toMatchObject({ component: 'storage', status: 'UP' });
      const unknownNode = await request(`${entrance}/api/storage/ping`, {
        headers: { 'x-storage-node-id': 'node-not-there' },
      });
      expect(unknownNode.statusCode).toBe(404);
      expect(await unknownNode.body.json()).toMatchObject({ error: { code: 'STORAGE_NODE_NOT_FOUND' } });

      for (const svc of roles) svc.child.kill('SIGTERM');
      for (const svc of roles) expect((await svc.exited).code).toBe(0);
    },
  );

  it('a role without the service token refuses to start with one line', async () => {
    const env = {
      ...(await portEnv()),
      ...backend.env,
      SVC_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-roles-')),
    };
    folders.push(env.SVC_DATA_DIR);
    const svc = runSvc(['role', 'edge'], env);
    processes.push(svc);
    const { code } = await svc.exited;
    expect(code).toBe(2);
    expect(svc.stderr().trim()).toMatch(/^svc: SVC_SERVICE_TOKEN: is required/);
  });
});
