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
import { connect } from 'node:net';
import { availableParallelism, loadavg, setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
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
const RUNS = Number(process.env.STREAM_BENCH_RUNS ?? 3);
const CLIENTS = 100;
const CLIENT_MBPS = 20;
const CLIENT_RATE = (CLIENT_MBPS * 1_000_000) / 8;
/** Each client's rate is measured over every 10 s window of MEASURE_MS, after a warm-up (the first burst). */
const WARMUP_MS = 2_000;
const MEASURE_MS = Number(process.env.STREAM_BENCH_MEASURE_SECONDS ?? 30) * 1000;
const WINDOW_MS = 10_000;
const BIN_MS = 100;
/** The clients' priority (STREAM_BENCH_CLIENT_NICE): players stand on other machines; here they share the CPU. */
const CLIENT_NICE = Number(process.env.STREAM_BENCH_CLIENT_NICE ?? 0);

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

/** CPU seconds (user + system) of several processes, from /proc/<pid>/stat. */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`;

/** One curl download of a byte range; resolves to the bytes it received. */
function curlRange(url: string, start: number, end: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'curl',
      ['-s', '-o', '/dev/null', '-w', '%{size_download}', '-r', `${start}-${end}`, url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (data: Buffer) => (out += data.toString()));
    child.on('error', reject);
    // 'close', not 'exit': the exit can come before the last of curl's output was read.
    child.on('close', (code) => {
      const bytes = Number(out.trim());
      if (code !== 0 || bytes !== end - start + 1)
        reject(new Error(`curl -r ${start}-${end} ${url}: ${code} ${out}`));
      else resolve(bytes);
    });
  });
}

interface Downloads {
  /** Aggregate MB/s (10^6 bytes) from the first request to the last byte. */
  mbps: number;
  /** CPU seconds the server's processes used per GB (10^9 bytes) delivered. */
  cpuPerGb: number;
}

/** `streams` concurrent curl downloads sharing the whole file, with the server's CPU time per GB. */
async function downloads(url: string, streams: number, serverPids: number[]): Promise<Downloads> {
  const share = Math.floor(FILE_BYTES / streams);
  const cpuBefore = cpuOf(serverPids);
  const begin = performance.now();
  const sizes = await Promise.all(
    Array.from({ length: streams }, (_, i) => curlRange(url, i * share, (i + 1) * share - 1)),
  );
  const seconds = (performance.now() - begin) / 1000;
  const bytes = sizes.reduce((a, b) => a + b, 0);
  return { mbps: bytes / 1e6 / seconds, cpuPerGb: (cpuOf(serverPids) - cpuBefore) / (bytes / 1e9) };
}

/** Received body bytes of one limited stream in BIN_MS bins from a common start. */
interface StreamBins {
  bins: Float64Array;
  failure: string | null;
  stop: () => void;
}

/**
 * A Range client on a raw socket (cheap per chunk, so the measuring loop itself is not what falls behind):
 * asks for `bytes=<offset>-` and counts the body bytes into time bins.
 */
function limitedStream(url: URL, offset: number, t0: number, bins: number): StreamBins {
  const result: StreamBins = { bins: new Float64Array(bins), failure: null, stop: () => socket.destroy() };
  const socket = connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  socket.write(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nRange: bytes=${offset}-\r\nConnection: close\r\n\r\n`,
  );
  let head: Buffer | null = Buffer.alloc(0);
  socket.on('data', (data: Buffer) => {
    let body = data;
    if (head) {
      head = Buffer.concat([head, data]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.1 206 /.test(status)) {
        result.failure = status;
        socket.destroy();
        return;
      }
      body = head.subarray(end + 4);
      head = null;
    }
    const bin = Math.floor((performance.now() - t0) / BIN_MS);
    if (bin < bins) result.bins[bin]! += body.length;
  });
  socket.on('error', (error) => (result.failure ??= error.message));
  return result;
}

interface LimitedRun {
  /** Per stream: its lowest and highest rate over any 10 s window after the warm-up, bytes/s. */
  worst: { low: number; high: number }[];
  cpuPerGb: number;
}

/** CLIENTS limited streams for WARMUP_MS + MEASURE_MS; every 10 s window (100 ms steps) of each stream. */
async function limitedRun(url: string, serverPids: number[]): Promise<LimitedRun> {
  const target = new URL(url);
  const binCount = Math.ceil((WARMUP_MS + MEASURE_MS) / BIN_MS);
  const t0 = performance.now();
  const streams = Array.from({ length: CLIENTS }, () =>
    limitedStream(target, Math.floor(Math.random() * (FILE_BYTES / 2)), t0, binCount),
  );
  await sleep(WARMUP_MS);
  const cpuBefore = cpuOf(serverPids);
  await sleep(MEASURE_MS);
  const cpu = cpuOf(serverPids) - cpuBefore;
  for (const stream of streams) stream.stop();
  const failed = streams.find((stream) => stream.failure !== null);
  if (failed) throw new Error(`a limited stream failed: ${failed.failure}`);
  const first = WARMUP_MS / BIN_MS;
  const perWindow = WINDOW_MS / BIN_MS;
  let measuredBytes = 0;
  const worst = streams.map(({ bins }) => {
    let low = Infinity;
    let high = 0;
    let sum = 0;
    for (let i = first; i < first + perWindow; i++) sum += bins[i]!;
    for (let start = first; start + perWindow <= binCount; start++) {
      if (start > first) sum += bins[start + perWindow - 1]! - bins[start - 1]!;
      const rate = sum / (WINDOW_MS / 1000);
      low = Math.min(low, rate);
      high = Math.max(high, rate);
    }
    for (let i = first; i < binCount; i++) measuredBytes += bins[i]!;
    return { low, high };
  });
  return { worst, cpuPerGb: cpu / (measuredBytes / 1e9) };
}

const pct = (rate: number) =>
  `${rate >= CLIENT_RATE ? '+' : ''}${(((rate - CLIENT_RATE) / CLIENT_RATE) * 100).toFixed(1)} %`;

function printLimited(label: string, run: LimitedRun): void {
  const lows = run.worst.map((stream) => stream.low).sort((a, b) => a - b);
  const highs = run.worst.map((stream) => stream.high).sort((a, b) => a - b);
  const within = run.worst.filter(
    ({ low, high }) => low >= CLIENT_RATE * 0.95 && high <= CLIENT_RATE * 1.05,
  ).length;
  const median = (values: number[]) => values[Math.floor(values.length / 2)]!;
  console.log(
    `      ${label}: every 10 s window within ±5 %: ${within} of ${run.worst.length} streams; per stream lowest window: worst ${pct(lows[0]!)}, median ${pct(median(lows))}; highest window: worst ${pct(highs.at(-1)!)}, median ${pct(median(highs))}; ${run.cpuPerGb.toFixed(2)} CPU s/GB`,
  );
}

/** `count` processes spinning on the CPU, as another busy program on a small server would. */
function startCpuHog(count: number): { stop: () => Promise<void> } {
  const hogs = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return { stop: async () => void (await Promise.all(hogs.map((hog) => stop(hog, 'SIGKILL')))) };
}

/** The bench process's own priority (its children are started before it is raised); said when refused. */
function clientPriority(nice: number): void {
  try {
    setPriority(nice);
  } catch (error) {
    console.log(`    (the clients stay at nice 0: ${(error as Error).message})`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    const nginxPids = processTree(nginx.child.pid!);
    const nginxUrl = `${nginx.url}/${encodeURIComponent('Big Movie (2020)')}/${encodeURIComponent('Big Movie (2020).mkv')}`;

    // --- Unlimited downloads: throughput and CPU per GB, the play-agent beside nginx sendfile -------------
    const env = { ...(await portEnv()), SVC_DATA_DIR: dataDir };
    let svc = await startStandalone(env);
    children.push(svc);
    const { token, itemId } = await prepare(env, library);
    const streamUrl = `http://${env.PLAY_AGENT_LISTEN}/Videos/${itemId}/stream?static=true&api_key=${token}`;
    const agentPid = playAgentPid(dataDir);
    // Read once through each so both serve from the page cache.
    curlSpeed(nginxUrl, FILE_BYTES);
    curlSpeed(streamUrl, FILE_BYTES);

    console.log('play-agent streaming (standalone install, co-located storage node, this machine)');
    console.log(
      `  unlimited downloads of the ${FILE_BYTES / MB / 1024} GiB file split among N concurrent curl clients on loopback, ${RUNS} runs each, taken in turn; CPU of the play-agent process vs the nginx processes (/proc/<pid>/stat); MB = 10^6 bytes:`,
    );
    for (const streams of [1, 20, 100]) {
      const agentRuns: Downloads[] = [];
      const nginxRuns: Downloads[] = [];
      for (let run = 0; run < RUNS; run++) {
        agentRuns.push(await downloads(streamUrl, streams, [agentPid]));
        nginxRuns.push(await downloads(nginxUrl, streams, nginxPids));
      }
      const speeds = (runs: Downloads[]) => runs.map((run) => run.mbps.toFixed(0)).join(', ');
      const cpus = (runs: Downloads[]) => runs.map((run) => run.cpuPerGb.toFixed(2)).join(', ');
      const best = (runs: Downloads[]) => Math.max(...runs.map((run) => run.mbps));
      const leastCpu = (runs: Downloads[]) => Math.min(...runs.map((run) => run.cpuPerGb));
      console.log(`    ${streams} stream${streams === 1 ? '' : 's'}, ${load()}:`);
      console.log(
        `      play-agent: ${best(agentRuns).toFixed(0)} MB/s best (${speeds(agentRuns)}), ${leastCpu(agentRuns).toFixed(2)} CPU s/GB least (${cpus(agentRuns)})`,
      );
      console.log(
        `      reference, nginx sendfile: ${best(nginxRuns).toFixed(0)} MB/s best (${speeds(nginxRuns)}), ${leastCpu(nginxRuns).toFixed(2)} CPU s/GB least (${cpus(nginxRuns)})`,
      );
      console.log(
        `      ratio play-agent / nginx: throughput ${(best(agentRuns) / best(nginxRuns)).toFixed(2)}x${streams === 1 ? ' (goal >= 0.80)' : ''}, CPU per GB ${(leastCpu(agentRuns) / leastCpu(nginxRuns)).toFixed(1)}x`,
      );
    }

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
    await sleep(1_000);
    const idleRss = residentBytes(limitedPid);
    let peakRss = idleRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, residentBytes(limitedPid));
    }, 250);
    const limitedNginx = await startNginx(library, path.join(work, 'limited'), CLIENT_RATE);
    children.push(limitedNginx.child);
    const limitedNginxPids = processTree(limitedNginx.child.pid!);
    const limitedNginxUrl = nginxUrl.replace(nginx.url, limitedNginx.url);
    console.log(
      `  ${CLIENTS} concurrent Range clients limited to ${CLIENT_MBPS} Mbps each (${(CLIENT_RATE / 1e6).toFixed(2)} MB/s), every ${WINDOW_MS / 1000} s window (${BIN_MS} ms steps) of ${MEASURE_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up; the clients (raw sockets in the bench process) run at nice ${CLIENT_NICE}, standing for players on other machines, the servers and the hog at 0:`,
    );
    for (const hogs of [0, availableParallelism()]) {
      const hog = startCpuHog(hogs);
      clientPriority(CLIENT_NICE);
      try {
        for (const [label, url, pids] of [
          ['play-agent', streamUrl, [limitedPid]],
          ['reference, nginx limit_rate', limitedNginxUrl, limitedNginxPids],
        ] as const) {
          console.log(
            `    ${hogs === 0 ? 'without a CPU hog' : `with ${hogs} busy-looping processes beside it`}, ${load()}:`,
          );
          printLimited(label, await limitedRun(url, [...pids]));
        }
      } finally {
        clientPriority(0);
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
