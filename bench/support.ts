import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'undici';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = server.address() as import('node:net').AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process in bytes (VmRSS), 0 when it is gone. */
export function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function isHealthy(url: string): Promise<boolean> {
  try {
    const response = await request(url, { headersTimeout: 1_000, bodyTimeout: 1_000 });
    await response.body.dump();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not reached within ${timeoutMs} ms`);
}

/**
 * Waits for `check` as long as `child` lives, however long a busy machine needs, saying every 30 s what it
 * waits for; fails at once if the process exits. (A fixed limit failed first starts under load.)
 */
export async function waitWhileRunning(
  child: ChildProcess,
  check: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const begin = Date.now();
  let told = begin;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what}: the process exited (${child.exitCode ?? child.signalCode}) first`);
    }
    if (await check()) return;
    if (Date.now() - told >= 30_000) {
      told = Date.now();
      console.error(`  (still waiting for ${what}: ${Math.round((told - begin) / 1000)} s)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Pids of a process and all its descendants. */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** CPU time (user + system) a process used so far, in seconds (Linux clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export type Json = Record<string, unknown>;

/** A JSON call that must succeed (2xx), with the answer parsed. */
export async function json(
  base: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Json> {
  const answer = await request(`${base}${route}`, {
    method: method as 'GET',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const text = await answer.body.text();
  if (answer.statusCode >= 300) throw new Error(`${method} ${route} answered ${answer.statusCode}: ${text}`);
  return (text ? JSON.parse(text) : {}) as Json;
}

/** A local mount of `folder` on the built-in storage node and a scanned movie library over it. */
export async function scannedBenchLibrary(
  entrance: string,
  folder: string,
  admin: Record<string, string>,
): Promise<void> {
  // The storage node registers with the config service shortly after it answers its health route.
  await waitUntil(async () => {
    const mounts = await request(`${entrance}/api/storage/mounts`, { headers: admin });
    await mounts.body.dump();
    return mounts.statusCode === 200;
  }, 60_000);
  const mount = await json(
    entrance,
    'POST',
    '/api/storage/mounts',
    { name: 'bench', provider: 'local', config: { root: folder } },
    admin,
  );
  const created = await json(
    entrance,
    'POST',
    '/api/media/libraries',
    {
      name: 'Bench',
      type: 'movies',
      sources: [{ nodeId: 'node-local-storage', mountId: mount.id, path: '/' }],
    },
    admin,
  );
  // Creating the library started its first scan.
  await waitUntil(async () => {
    const scan = (
      await json(entrance, 'GET', `/api/media/libraries/${String(created.id)}/scan`, undefined, admin)
    ).scan as Json | null;
    return scan?.state === 'succeeded';
  }, 120_000);
}
