import { readFileSync } from 'node:fs';
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

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
