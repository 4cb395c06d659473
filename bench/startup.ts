import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { portEnv, standaloneHealthUrls, type PortEnv } from '../packages/server/test/support/ports.js';
import {
  freePort,
  isHealthy,
  mib,
  processTree,
  residentBytes,
  seconds,
  waitUntil,
  waitWhileRunning,
} from './support.js';

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');

async function timedStart(
  env: PortEnv & Record<string, string>,
): Promise<{ ms: number; child: ChildProcess }> {
  const begin = performance.now();
  const child = spawn(process.execPath, [BUNDLE, 'standalone'], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const urls = standaloneHealthUrls(env);
  await waitWhileRunning(
    child,
    async () => (await Promise.all(urls.map(isHealthy))).every(Boolean),
    'the standalone install to be healthy',
  );
  return { ms: performance.now() - begin, child };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A bare Node HTTP server: the floor any Node service pays for starting and existing. */
async function reference(): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const begin = performance.now();
  const child = spawn(
    process.execPath,
    ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`],
    { stdio: 'ignore' },
  );
  await waitUntil(() => isHealthy(`http://127.0.0.1:${port}/`), 10_000);
  const ms = performance.now() - begin;
  const rss = residentBytes(child.pid!);
  await stop(child);
  return { ms, rss };
}

export async function benchStartup(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-startup-'));
  try {
    const env = { ...(await portEnv()), SVC_DATA_DIR: dataDir, SVC_PLAY_AGENT_BIND_HOST: '127.0.0.1' };
    const cold = await timedStart(env);
    // Let start-up garbage settle before measuring resident memory.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const tree = processTree(cold.child.pid!);
    const perProcess = tree.map((pid) => ({ pid, rss: residentBytes(pid) }));
    const total = perProcess.reduce((sum, entry) => sum + entry.rss, 0);
    await stop(cold.child);

    const warm = await timedStart(env);
    await stop(warm.child);

    const ref = await reference();
    console.log('startup (standalone edition, embedded database, this machine)');
    console.log(`  cold start to all 8 listeners healthy (new data folder): ${seconds(cold.ms)}`);
    console.log(`  warm start to all 8 listeners healthy (same data folder): ${seconds(warm.ms)}`);
    console.log(`  resident memory, whole install (${tree.length} processes): ${mib(total)}`);
    for (const entry of perProcess) console.log(`    pid ${entry.pid}: ${mib(entry.rss)}`);
    console.log(`  reference, bare node http server: start ${seconds(ref.ms)}, resident ${mib(ref.rss)}`);
    console.log(`  ratio warm start / reference start: ${(warm.ms / ref.ms).toFixed(1)}x`);
    console.log(`  ratio memory / (4 x reference process): ${(total / (4 * ref.rss)).toFixed(2)}x`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
