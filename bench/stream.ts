// `npm run bench -- stream`: the play-agent's byte path against nginx serving the same file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { portEnv, standaloneHealthUrls, type PortEnv } from '../packages/server/test/support/ports.js';
import { curlSpeed, startNginx, stop } from './nginx.js';
import {
  cpuSeconds,
  isHealthy,
  json,
  mib,
  processTree,
  residentBytes,
  scannedBenchLibrary,
  waitWhileRunning,
  type Json,
} from './support.js';

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');
const MB = 1024 * 1024;
const FILE_BYTES = 2048 * MB;
const RUNS = 3;
const CLIENTS = 100;
const CLIENT_MBPS = 20;
const CLIENT_RATE = (CLIENT_MBPS * 1_000_000) / 8;
/** Each client's rate is measured over this window, after a warm-up that excludes the first burst. */
const WARMUP_MS = 2_000;
const WINDOW_MS = 10_000;

async function startStandalone(env: PortEnv & Record<string, string>): Promise<ChildProcess> {
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
  return child;
}

/** Sets up an administrator, a library holding the file, and a player signed in to the play-agent. */
async function prepare(env: PortEnv, library: string): Promise<{ token: string; itemId: string }> {
  const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
  await json(entrance, 'POST', '/api/auth/setup/admin', { username: 'root', password: 'bench-password-1' });
  const login = await json(entrance, 'POST', '/api/auth/login', {
    username: 'root',
    password: 'bench-password-1',
    client: 'console',
  });
  const admin = { 'x-admin-token': String(login.adminToken) };
  await scannedBenchLibrary(entrance, library, admin);
  const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
  const auth = 'Emby Client="bench", Device="bench", DeviceId="bench", Version="1"';
  const signedIn = await json(
    playAgent,
    'POST',
    '/Users/AuthenticateByName',
    { Username: 'root', Pw: 'bench-password-1' },
    { 'x-emby-authorization': auth },
  );
  const token = String(signedIn.AccessToken);
  const userId = String((signedIn.User as Json).Id);
  const items = await json(
    playAgent,
    'GET',
    `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
    undefined,
    { 'x-emby-token': token },
  );
  const item = (items.Items as Json[])[0];
  if (!item) throw new Error('the scan found no movie');
  return { token, itemId: String(item.Id) };
}

function playAgentPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'run', 'node-local-play-agent.pid'), 'utf8'));
}

/** Downloads with curl and reports MB/s and the CPU seconds per GB the server process used. */
function measured(url: string, serverPid: number): { speed: number; cpuPerGb: number } {
  const cpuBefore = cpuSeconds(serverPid);
  const speed = curlSpeed(url, FILE_BYTES);
  return { speed, cpuPerGb: (cpuSeconds(serverPid) - cpuBefore) / (FILE_BYTES / 1024 / MB) };
}

/** One client reading from a random offset; returns its rate over the window after the warm-up. */
async function rangeClient(url: string, dispatcher: Agent): Promise<number> {
  const offset = Math.floor(Math.random() * (FILE_BYTES / 2));
  const controller = new AbortController();
  const answer = await request(url, {
    headers: { range: `bytes=${offset}-` },
    signal: controller.signal,
    dispatcher,
  });
  if (answer.statusCode !== 206) throw new Error(`range client answered ${answer.statusCode}`);
  const begin = performance.now();
  let counted = 0;
  let windowStart = 0;
  try {
    for await (const chunk of answer.body) {
      const now = performance.now() - begin;
      if (now >= WARMUP_MS) {
        if (windowStart === 0) windowStart = now;
        else counted += (chunk as Buffer).length;
      }
      if (now >= WARMUP_MS + WINDOW_MS) break;
    }
  } finally {
    controller.abort();
  }
  const seconds = (performance.now() - begin - windowStart) / 1000;
  return counted / seconds;
}

/** The per-client rates of CLIENTS concurrent limited readers, sorted. */
async function limitedRates(url: string): Promise<number[]> {
  const dispatcher = new Agent({ connections: CLIENTS * 2 });
  try {
    const rates = await Promise.all(Array.from({ length: CLIENTS }, () => rangeClient(url, dispatcher)));
    return rates.sort((a, b) => a - b);
  } finally {
    await dispatcher.close();
  }
}

function printRates(label: string, rates: number[]): void {
  const within = rates.filter((rate) => Math.abs(rate - CLIENT_RATE) / CLIENT_RATE <= 0.05).length;
  const pct = (rate: number) => `${(((rate - CLIENT_RATE) / CLIENT_RATE) * 100).toFixed(1)} %`;
  const at = (index: number) => `${(rates[index]! / 1e6).toFixed(3)} MB/s (${pct(rates[index]!)})`;
  console.log(
    `      ${label}: min ${at(0)}, median ${at(Math.floor(rates.length / 2))}, max ${at(rates.length - 1)}; within ±5 %: ${within} of ${rates.length}`,
  );
}

/** `count` processes spinning on the CPU, as another busy program on a small server would. */
function startCpuHog(count: number): { stop: () => Promise<void> } {
  const hogs = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return { stop: async () => void (await Promise.all(hogs.map((hog) => stop(hog, 'SIGKILL')))) };
}

export async function benchStream(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-stream-'));
  const library = path.join(work, 'library');
  const dataDir = path.join(work, 'data');
  const children: ChildProcess[] = [];
  try {
    chmodSync(work, 0o755);
    const folder = path.join(library, 'Big Movie (2020)');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'Big Movie (2020).mkv');
    const fd = openSync(file, 'w');
    const piece = randomBytes(4 * MB);
    for (let written = 0; written < FILE_BYTES; written += piece.length) writeSync(fd, piece);
    closeSync(fd);

    const nginx = await startNginx(library, work);
    children.push(nginx.child);
    const nginxWorker = processTree(nginx.child.pid!).at(-1)!;
    const nginxUrl = `${nginx.url}/${encodeURIComponent('Big Movie (2020)')}/${encodeURIComponent('Big Movie (2020).mkv')}`;

    // --- One client: the play-agent (co-located with the storage node) vs nginx sendfile ------------------
    const env = { ...(await portEnv()), SVC_DATA_DIR: dataDir };
    let svc = await startStandalone(env);
    children.push(svc);
    const { token, itemId } = await prepare(env, library);
    const streamUrl = `http://${env.PLAY_AGENT_LISTEN}/Videos/${itemId}/stream?static=true&api_key=${token}`;
    const agentPid = playAgentPid(dataDir);
    // Read once through each so both serve from the page cache.
    curlSpeed(nginxUrl, FILE_BYTES);
    curlSpeed(streamUrl, FILE_BYTES);
    const viaNginx = Array.from({ length: RUNS }, () => measured(nginxUrl, nginxWorker));
    const viaAgent = Array.from({ length: RUNS }, () => measured(streamUrl, agentPid));
    const best = (runs: { speed: number }[]) => {
      const all = runs.map((run) => run.speed);
      return { best: Math.max(...all), all };
    };
    const agentBest = best(viaAgent);
    const nginxBest = best(viaNginx);
    const cpu = (runs: { cpuPerGb: number }[]) => Math.min(...runs.map((run) => run.cpuPerGb));

    console.log('play-agent streaming (standalone install, co-located storage node, this machine)');
    console.log(`  one client, ${FILE_BYTES / MB / 1024} GiB file, curl on loopback, best of ${RUNS}:`);
    console.log(
      `    play-agent: ${agentBest.best.toFixed(0)} MB/s (${agentBest.all.map((v) => v.toFixed(0)).join(', ')}), ${cpu(viaAgent).toFixed(2)} CPU s/GB`,
    );
    console.log(
      `    reference, nginx sendfile: ${nginxBest.best.toFixed(0)} MB/s (${nginxBest.all.map((v) => v.toFixed(0)).join(', ')}), ${cpu(viaNginx).toFixed(2)} CPU s/GB`,
    );
    console.log(
      `    ratio play-agent / nginx: ${(agentBest.best / nginxBest.best).toFixed(2)}x (goal >= 0.80)`,
    );

    // --- 100 concurrent Range clients, each limited to 20 Mbps ------------------------------------------
    await stop(svc, 'SIGINT');
    children.pop();
    svc = await startStandalone({ ...env, PLAY_AGENT_STREAM_RATE_LIMIT_MBPS: String(CLIENT_MBPS) });
    children.push(svc);
    const limitedPid = playAgentPid(dataDir);
    // The play-agent answers 503 until the restarted storage node has registered again.
    await waitWhileRunning(
      svc,
      async () => (await request(streamUrl, { method: 'HEAD' })).statusCode === 200,
      'the play-agent to reach the restarted storage node',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleRss = residentBytes(limitedPid);
    let peakRss = idleRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, residentBytes(limitedPid));
    }, 250);
    const limitedNginx = await startNginx(library, path.join(work, 'limited'), CLIENT_RATE);
    children.push(limitedNginx.child);
    const limitedNginxUrl = nginxUrl.replace(nginx.url, limitedNginx.url);
    console.log(
      `  ${CLIENTS} concurrent Range clients limited to ${CLIENT_MBPS} Mbps each (${(CLIENT_RATE / 1e6).toFixed(2)} MB/s), ${WINDOW_MS / 1000} s window after ${WARMUP_MS / 1000} s:`,
    );
    for (const hogs of [0, availableParallelism()]) {
      const hog = startCpuHog(hogs);
      try {
        console.log(
          `    ${hogs === 0 ? 'without a CPU hog' : `with ${hogs} busy-looping processes beside it`}, load average ${loadavg()
            .map((value) => value.toFixed(1))
            .join(' / ')}:`,
        );
        printRates('play-agent', await limitedRates(streamUrl));
        printRates('reference, nginx limit_rate', await limitedRates(limitedNginxUrl));
      } finally {
        await hog.stop();
      }
    }
    clearInterval(sampler);
    console.log(
      `    play-agent resident memory: ${mib(idleRss)} idle, ${mib(peakRss)} at peak, ${mib((peakRss - idleRss) / CLIENTS)} per stream`,
    );
  } finally {
    for (const child of children.reverse())
      await stop(child, child.spawnfile === 'nginx' ? 'SIGQUIT' : 'SIGINT');
    spawnSync('sync');
    rmSync(work, { recursive: true, force: true });
  }
}
