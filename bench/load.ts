import { spawn } from 'node:child_process';

/**
 * Measures requests per second against one URL from a separate process, so that the load generator
 * does not share an event loop (or a core's time slice accounting) with the server under test.
 */
export async function loadTest(
  url: string,
  options: { headers?: Record<string, string>; connections?: number; durationMs?: number } = {},
): Promise<{ rps: number; p50Ms: number; p99Ms: number }> {
  const script = `
    const { Pool } = require('undici');
    const { origin, pathname, search } = new URL(process.argv[1]);
    const headers = JSON.parse(process.argv[2]);
    const connections = Number(process.argv[3]);
    const duration = Number(process.argv[4]);
    const pool = new Pool(origin, { connections, pipelining: 1 });
    const latencies = [];
    let failed = 0;
    const run = async (until, record) => {
      while (Date.now() < until) {
        const began = process.hrtime.bigint();
        const response = await pool.request({ method: 'GET', path: pathname + search, headers });
        await response.body.dump();
        if (response.statusCode !== 200) failed += 1;
        else if (record) latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
      }
    };
    (async () => {
      const warm = Date.now() + 1000;
      await Promise.all(Array.from({ length: connections }, () => run(warm, false)));
      const until = Date.now() + duration;
      await Promise.all(Array.from({ length: connections }, () => run(until, true)));
      await pool.close();
      latencies.sort((a, b) => a - b);
      const pick = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
      process.stdout.write(JSON.stringify({ rps: latencies.length / (duration / 1000), p50Ms: pick(0.5), p99Ms: pick(0.99), failed }));
    })();
  `;
  const child = spawn(
    process.execPath,
    [
      '-e',
      script,
      url,
      JSON.stringify(options.headers ?? {}),
      String(options.connections ?? 32),
      String(options.durationMs ?? 5_000),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  const result = JSON.parse(output) as { rps: number; p50Ms: number; p99Ms: number; failed: number };
  if (result.failed > 0) throw new Error(`${result.failed} requests to ${url} failed`);
  return result;
}
