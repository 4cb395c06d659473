import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { installBackends } from '../support/install-backends.js';
import { portEnv, standaloneHealthUrls as healthUrls } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const started: SvcProcess[] = [];
const folders: string[] = [];

function dataFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-'));
  folders.push(dir);
  return dir;
}

function start(env: Record<string, string>): SvcProcess {
  const svc = runSvc(['standalone'], env);
  started.push(svc);
  return svc;
}

async function stopWithSigint(svc: SvcProcess): Promise<void> {
  svc.child.kill('SIGINT');
  const { code } = await svc.exited;
  expect(code).toBe(0);
}

async function status(url: string): Promise<number> {
  const response = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
  await response.body.dump();
  return response.statusCode;
}

afterAll(async () => {
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) {
      svc.child.kill('SIGKILL');
      await svc.exited;
    }
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe.each(installBackends())('svc standalone on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it(
    'brings up every listener, restarts a killed play-agent, stops cleanly and restarts on the same data',
    { timeout: 240_000 },
    async () => {
      const dataDir = dataFolder();
      const env = { ...(await portEnv()), ...backend.env, SVC_DATA_DIR: dataDir };
      const first = start(env);
      await first.waitForLog(/standalone edition is up/);
      for (const url of healthUrls(env)) expect(await status(url), url).toBe(200);
      if (backend.label === 'pglite') {
        // Both embedded instances (control, storage) are copies of the build's template, not initdb runs.
        const created = first.stdout().match(/^.*"msg":"embedded database created".*$/gm) ?? [];
        expect(created).toHaveLength(2);
        for (const line of created) expect(JSON.parse(line)).toMatchObject({ source: 'template' });
      }

      const capabilities = await request(
        `http://127.0.0.1:${env.SVC_FRONTEND_PORT}/api/config/deployment/capabilities`,
      );
      expect(await capabilities.body.json()).toMatchObject({
        edition: 'STANDALONE',
        deploymentMode: 'standalone',
      });

      const page = await request(`http://127.0.0.1:${env.SVC_FRONTEND_PORT}/`);
      expect(page.statusCode).toBe(200);
      expect(await page.body.text()).toContain('<div id="root">');

      // Killing the built-in play-agent: the supervisor starts a new one within 5 s.
      const pidFile = path.join(dataDir, 'run', 'node-local-play-agent.pid');
      const oldPid = Number(readFileSync(pidFile, 'utf8'));
      process.kill(oldPid, 'SIGKILL');
      const killedAt = Date.now();
      const playAgentHealth = healthUrls(env).at(-1)!;
      await waitFor(
        async () => {
          const newPid = Number(readFileSync(pidFile, 'utf8'));
          return newPid !== oldPid && (await status(playAgentHealth)) === 200 ? newPid : undefined;
        },
        5_000,
        50,
      );
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      expect(first.stdout()).toMatch(/"process":"node-local-play-agent".*"msg":"process died; restarting"/);

      const token = readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8');
      await stopWithSigint(first);
      for (const pid of first.childPids()) expect(isAlive(pid), `pid ${pid}`).toBe(false);
      expect(existsSync(path.join(dataDir, 'run', 'svc.pid'))).toBe(false);

      // A second start finds its databases and token and applies no migration.
      const second = start(env);
      await second.waitForLog(/standalone edition is up/);
      for (const url of healthUrls(env)) expect(await status(url), url).toBe(200);
      expect(second.stdout()).not.toContain('migrations applied');
      expect(readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8')).toBe(token);
      await stopWithSigint(second);
      for (const pid of second.childPids()) expect(isAlive(pid)).toBe(false);
    },
  );
});

describe('svc standalone refuses bad settings with one line', () => {
  async function expectRefusal(env: Record<string, string>, mention: RegExp): Promise<SvcProcess> {
    const svc = start(env);
    const { code } = await svc.exited;
    expect(code).not.toBe(0);
    const lines = svc.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: /);
    expect(lines[0]).toMatch(mention);
    for (const pid of svc.childPids()) expect(isAlive(pid), `child ${pid} left behind`).toBe(false);
    return svc;
  }

  it('an unknown SVC_DB_MODE', async () => {
    const svc = await expectRefusal(
      { ...(await portEnv()), SVC_DATA_DIR: dataFolder(), SVC_DB_MODE: 'sqlite' },
      /SVC_DB_MODE/,
    );
    expect(await svc.exited).toMatchObject({ code: 2 });
  });

  it('a port that is not a port', async () => {
    await expectRefusal(
      { ...(await portEnv()), SVC_DATA_DIR: dataFolder(), SVC_GATEWAY_PORT: '70000' },
      /SVC_GATEWAY_PORT/,
    );
  });

  it('a port that is taken', async () => {
    const env = { ...(await portEnv()), SVC_DATA_DIR: dataFolder() };
    const blocker: Server = createServer();
    await new Promise<void>((resolve) =>
      blocker.listen({ host: '127.0.0.1', port: Number(env.SVC_MEDIA_PORT) }, resolve),
    );
    try {
      await expectRefusal(env, /SVC_MEDIA_PORT.*already in use/);
    } finally {
      blocker.close();
    }
  });

  it('an unreachable external database, leaving no child behind', async () => {
    const svc = await expectRefusal(
      {
        ...(await portEnv()),
        SVC_DATA_DIR: dataFolder(),
        SVC_DB_MODE: 'external',
        SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres',
      },
      /PostgreSQL|connect/i,
    );
    expect(svc.childPids().length).toBeGreaterThan(0);
  });

  it('a data folder that cannot be written', async () => {
    const parent = dataFolder();
    const file = path.join(parent, 'a-file');
    writeFileSync(file, 'not a folder');
    await expectRefusal({ ...(await portEnv()), SVC_DATA_DIR: path.join(file, 'data') }, /SVC_DATA_DIR/);
  });

  it('a second start on a data folder that is in use', async () => {
    const dataDir = dataFolder();
    const first = start({ ...(await portEnv()), SVC_DATA_DIR: dataDir });
    await first.waitForLog(/standalone edition is up/);
    await expectRefusal({ ...(await portEnv()), SVC_DATA_DIR: dataDir }, /already served by svc process/);
    await stopWithSigint(first);
  });
});
