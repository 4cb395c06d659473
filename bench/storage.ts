import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { encodeIdentity } from '../packages/server/src/platform/http/route-auth.js';
import { bestOf, curlSpeed, startNginx, stop } from './nginx.js';
import { freePort, isHealthy, waitWhileRunning } from './support.js';
import { benchScan } from './scan.js';

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');
const TOKEN = 'svc_st_bench_storage_token_0123456789abcdefghij';
const MB = 1024 * 1024;
const LIST_ENTRIES = 10_000;
const LIST_CALLS = 50;
const COLD_CALLS = 5;
const DOWNLOAD_BYTES = 1024 * MB;
const DOWNLOAD_RUNS = 3;

const headers = {
  'x-svc-service-token': TOKEN,
  'x-svc-identity': encodeIdentity({
    userId: '00000000-0000-4000-8000-000000000001',
    username: 'bench',
    role: 'admin',
    permissions: ['storage'],
    tokenKind: 'admin',
    tokenId: 'bench',
    clientIp: '127.0.0.1',
  }),
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function benchStorage(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-storage-'));
  const root = path.join(work, 'mount');
  const dataDir = path.join(work, 'data');
  let node: ChildProcess | undefined;
  let nginx: ChildProcess | undefined;
  try {
    chmodSync(work, 0o755);
    mkdirSync(path.join(root, 'big-folder'), { recursive: true });
    for (let i = 0; i < LIST_ENTRIES; i++) {
      writeFileSync(path.join(root, 'big-folder', `episode ${i}.mkv`), Buffer.alloc(i % 1000));
    }
    const fd = openSync(path.join(root, 'one-gigabyte.bin'), 'w');
    const piece = randomBytes(4 * MB);
    for (let written = 0; written < DOWNLOAD_BYTES; written += piece.length) writeSync(fd, piece);
    closeSync(fd);
    writeFileSync(path.join(root, 'probe.txt'), 'ok');

    const storagePort = await freePort();
    const env = {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      SVC_SERVICE_TOKEN: TOKEN,
      SVC_STORAGE_PORT: String(storagePort),
      SVC_CONFIG_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      SVC_BIND_HOST: '127.0.0.1',
      SVC_NODE_ID: 'node-bench-storage',
      SVC_LOG_LEVEL: 'warn',
    };
    node = spawn(process.execPath, [BUNDLE, 'node', 'storage'], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const base = `http://127.0.0.1:${storagePort}`;
    await waitWhileRunning(node, () => isHealthy(`${base}/api/storage/ping`), 'the storage node to answer');
    const created = await request(`${base}/api/storage/mounts`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', provider: 'local', config: { root } }),
    });
    const mount = (await created.body.json()) as { id: string };

    // --- Listing latency of a 10,000-entry folder ------------------------------------------------------
    const browse = async (query: string) => {
      const begin = performance.now();
      const response = await request(
        `${base}/api/storage/mounts/${mount.id}/browse?path=big-folder&${query}`,
        {
          headers,
        },
      );
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`browse answered ${response.statusCode}`);
      return performance.now() - begin;
    };
    const sorts = ['name', 'size', 'mtime'];
    const warm: number[] = [];
    for (let call = 0; call < LIST_CALLS; call++) {
      const query = `pageSize=500&page=${(call % 20) + 1}&sort=${sorts[call % 3]}&order=${call % 2 ? 'desc' : 'asc'}`;
      warm.push(await browse(query));
    }
    const cold: number[] = [];
    for (let call = 0; call < COLD_CALLS; call++) {
      await new Promise((resolve) => setTimeout(resolve, 2_100)); // the listing snapshot lives 2 s
      cold.push(await browse(`pageSize=500&sort=${sorts[call % 3]}`));
    }
    warm.sort((a, b) => a - b);
    cold.sort((a, b) => a - b);

    // --- Download throughput: storage node vs nginx (sendfile) on the same file ------------------------
    const reference = await startNginx(root, work);
    nginx = reference.child;
    const nginxUrl = reference.url;
    // Read once through each so both serve from the page cache.
    curlSpeed(`${nginxUrl}/one-gigabyte.bin`, DOWNLOAD_BYTES);
    const nodeUrl = `${base}/api/storage/mounts/${mount.id}/download?path=one-gigabyte.bin`;
    curlSpeed(nodeUrl, DOWNLOAD_BYTES, headers);
    const viaNginx = bestOf(DOWNLOAD_RUNS, () => curlSpeed(`${nginxUrl}/one-gigabyte.bin`, DOWNLOAD_BYTES));
    const viaNode = bestOf(DOWNLOAD_RUNS, () => curlSpeed(nodeUrl, DOWNLOAD_BYTES, headers));

    console.log('storage node (local mount, embedded database, this machine)');
    console.log(`  listing a folder of ${LIST_ENTRIES} entries, pages of 500:`);
    console.log(
      `    ${LIST_CALLS} calls over pages and sort orders: p50 ${ms(percentile(warm, 50))}, p95 ${ms(percentile(warm, 95))}`,
    );
    console.log(
      `    ${COLD_CALLS} calls after the 2 s listing snapshot expired: p50 ${ms(percentile(cold, 50))}, max ${ms(cold.at(-1)!)}`,
    );
    console.log(`  download of a 1 GiB file (curl, loopback, best of ${DOWNLOAD_RUNS}):`);
    console.log(
      `    storage node: ${viaNode.best.toFixed(0)} MB/s (${viaNode.all.map((v) => v.toFixed(0)).join(', ')})`,
    );
    console.log(
      `    reference, nginx sendfile: ${viaNginx.best.toFixed(0)} MB/s (${viaNginx.all.map((v) => v.toFixed(0)).join(', ')})`,
    );
    console.log(`    ratio storage node / nginx: ${(viaNode.best / viaNginx.best).toFixed(2)}x`);
    // --- Scan throughput (media service): bench/scan.ts, the synthetic tree of 10,000 files ----------------
    console.log('');
    await benchScan();
  } finally {
    if (nginx) await stop(nginx, 'SIGQUIT');
    if (node) await stop(node);
    rmSync(work, { recursive: true, force: true });
  }
}
