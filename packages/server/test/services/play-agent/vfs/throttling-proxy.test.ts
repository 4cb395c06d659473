import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrottlingProxy, type ThrottlingProxy } from '../../../support/throttling-proxy.js';

const body = Buffer.alloc(400 * 1024, 1);
let origin: http.Server;
let proxy: ThrottlingProxy;

beforeAll(async () => {
  origin = http.createServer((request, response) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Number(range[2]);
      response.writeHead(206, { 'content-range': `bytes ${start}-${end}/${body.length}` });
      response.end(body.subarray(start, end + 1));
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const { port } = origin.address() as AddressInfo;
  proxy = await startThrottlingProxy({
    target: `http://127.0.0.1:${port}`,
    latencyMs: 150,
    bytesPerSecond: 1024 * 1024,
  });
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => origin.close(resolve));
});

async function timed(
  headers: Record<string, string> = {},
): Promise<{ ms: number; status: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(proxy.url + '/file', { headers });
  const bytes = (await response.arrayBuffer()).byteLength;
  return { ms: performance.now() - started, status: response.status, bytes };
}

describe('the throttling proxy', () => {
  it('adds its latency to every request and limits the bandwidth of the bodies', async () => {
    const small = await timed({ range: 'bytes=0-99' });
    expect(small).toMatchObject({ status: 206, bytes: 100 });
    expect(small.ms).toBeGreaterThanOrEqual(145);
    // 400 KiB at 1 MiB/s: at least ~350 ms beyond the latency (a 50 ms burst allowance).
    const big = await timed();
    expect(big).toMatchObject({ status: 200, bytes: body.length });
    expect(big.ms).toBeGreaterThanOrEqual(150 + 330);
    expect(proxy.stats.requests).toBe(2);
    expect(proxy.stats.responseBytes).toBe(100 + body.length);
    expect(proxy.stats.ranges).toEqual(['bytes=0-99']);
    // Without limits the same answer is fast.
    proxy.set({ latencyMs: 0, bytesPerSecond: 0 });
    const fast = await timed();
    expect(fast.ms).toBeLessThan(big.ms / 2);
  });
});
