import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { portEnv, type PortEnv } from '../../../../server/test/support/ports.js';
import { runSvc, type SvcProcess } from '../../../../server/test/support/svc-process.js';

export interface RunningInstall {
  svc: SvcProcess;
  env: PortEnv;
  /** The console entrance, e.g. http://127.0.0.1:20123 */
  entrance: string;
  playAgent: string;
  stop(): Promise<void>;
}

/** The real `svc standalone` program on free ports with its own data folder (bundled database). */
export async function startStandalone(extraEnv: Record<string, string> = {}): Promise<RunningInstall> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-web-e2e-'));
  const env = await portEnv();
  const svc = runSvc(['standalone'], { ...env, SVC_DATA_DIR: dataDir, ...extraEnv });
  const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
  try {
    await svc.waitForLog(/standalone edition is up/, 300_000);
    // The built-in storage node registers with the config service shortly after the install is up.
    const deadline = Date.now() + 60_000;
    while ((await fetch(`${entrance}/api/storage/ping`).catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline) throw new Error('the built-in storage node did not register');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    svc.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    svc,
    env,
    entrance,
    playAgent: `http://${env.PLAY_AGENT_LISTEN}`,
    async stop() {
      if (svc.child.exitCode === null) {
        svc.child.kill('SIGINT');
        const timer = setTimeout(() => svc.child.kill('SIGKILL'), 20_000);
        await svc.exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON call to the entrance (for arranging state a test does not drive through the pages). */
export async function callApi(
  entrance: string,
  method: string,
  route: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${entrance}${route}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
