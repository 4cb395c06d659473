import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
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

interface StartPhases {
  /** Supervisor's start (spawn to its first fork). */
  forkedAtMs: number;
  /** Per process: spawn of the supervisor to "ready" over IPC. */
  readyAtMs: Record<string, number>;
  /** New embedded instances: how they were made and how long that took. */
  created: { process: string; source: string; ms: number }[];
}

/** Start-up figures from the supervisor's and children's log lines (`time` is an ISO date: the logger's isoTime). */
function phasesOf(lines: string[], begin: number): StartPhases {
  const phases: StartPhases = { forkedAtMs: NaN, readyAtMs: {}, created: [] };
  for (const line of lines) {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const at = Date.parse(String(record.time)) - begin;
    if (record.msg === 'process starting' && Number.isNaN(phases.forkedAtMs)) phases.forkedAtMs = at;
    if (record.msg === 'process ready') phases.readyAtMs[String(record.process)] = at;
    if (record.msg === 'embedded database created') {
      phases.created.push({
        process: String(record.component),
        source: String(record.source),
        ms: Number(record.ms),
      });
    }
  }
  return phases;
}

async function timedStart(
  env: PortEnv & Record<string, string>,
): Promise<{ ms: number; child: ChildProcess; phases: StartPhases }> {
  const begin = Date.now();
  const child = spawn(process.execPath, [BUNDLE, 'standalone'], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    // only the start-up's lines matter; later ones are dropped
    if (lines.length < 5_000) lines.push(...parts);
  });
  const urls = standaloneHealthUrls(env);
  await waitWhileRunning(
    child,
    async () => (await Promise.all(urls.map(isHealthy))).every(Boolean),
    'the standalone install to be healthy',
  );
  const ms = Date.now() - begin;
  return { ms, child, phases: phasesOf(lines, begin) };
}

function printPhases(phases: StartPhases): void {
  const ready = Object.entries(phases.readyAtMs)
    .map(([name, at]) => `${name} ${seconds(at)}`)
    .join(', ');
  console.log(`      first process forked after ${seconds(phases.forkedAtMs)}; ready: ${ready}`);
  for (const created of phases.created) {
    console.log(
      `      new embedded instance (${created.process}): ${created.source}, ${seconds(created.ms)}`,
    );
  }
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
    const loadBefore = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
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
    console.log(`  load average at start: ${loadBefore}`);
    console.log(`  cold start to all 8 listeners healthy (new data folder): ${seconds(cold.ms)}`);
    printPhases(cold.phases);
    console.log(`  warm start to all 8 listeners healthy (same data folder): ${seconds(warm.ms)}`);
    printPhases(warm.phases);
    console.log(`  resident memory, whole install (${tree.length} processes): ${mib(total)}`);
    for (const entry of perProcess) console.log(`    pid ${entry.pid}: ${mib(entry.rss)}`);
    console.log(`  reference, bare node http server: start ${seconds(ref.ms)}, resident ${mib(ref.rss)}`);
    console.log(`  ratio warm start / reference start: ${(warm.ms / ref.ms).toFixed(1)}x`);
    console.log(`  ratio memory / (4 x reference process): ${(total / (4 * ref.rss)).toFixed(2)}x`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
