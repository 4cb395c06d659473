import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/** One request of a round: its path on the origin, the headers it carries and the status it must get. */
export interface ArtworkRequest {
  path: string;
  headers?: Record<string, string>;
  status: 200 | 304;
}

export interface LoadFigures {
  /** Answers per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  answers: number;
  /** Body bytes received per answer, on average. */
  bytesPerAnswer: number;
}

/**
 * Runs requests against one origin from a separate process (its own event loop and core time), with
 * `clients` connections each taking the next request of the list. `once`: every request exactly once, the
 * rate is answers over the whole time (the cold round: each variant is made once). `loop`: the list over and
 * over for `durationMs` after one second of warm-up (the warm rounds).
 */
export async function artworkLoad(
  origin: string,
  requests: ArtworkRequest[],
  options: { clients: number; mode: 'once' | 'loop'; durationMs?: number; listFile: string },
): Promise<LoadFigures> {
  writeFileSync(options.listFile, JSON.stringify(requests));
  const script = `
    const { readFileSync } = require('node:fs');
    const { Pool } = require('undici');
    const [origin, listFile, clientsText, mode, durationText] = process.argv.slice(1);
    const list = JSON.parse(readFileSync(listFile, 'utf8'));
    const clients = Number(clientsText);
    const pool = new Pool(origin, { connections: clients, pipelining: 1 });
    const latencies = [];
    let bytes = 0;
    let next = 0;
    const one = async (request, record) => {
      const began = process.hrtime.bigint();
      const answer = await pool.request({ method: 'GET', path: request.path, headers: request.headers || {} });
      let size = 0;
      for await (const chunk of answer.body) size += chunk.length;
      if (answer.statusCode !== request.status) {
        throw new Error(request.path + ' answered ' + answer.statusCode + ', expected ' + request.status);
      }
      if (record) {
        latencies.push(Number(process.hrtime.bigint() - began) / 1e6);
        bytes += size;
      }
    };
    const loop = async (until, record) => {
      while (Date.now() < until) await one(list[next++ % list.length], record);
    };
    const once = async () => {
      while (next < list.length) await one(list[next++], true);
    };
    (async () => {
      let seconds;
      if (mode === 'once') {
        const began = process.hrtime.bigint();
        await Promise.all(Array.from({ length: clients }, once));
        seconds = Number(process.hrtime.bigint() - began) / 1e9;
      } else {
        await Promise.all(Array.from({ length: clients }, () => loop(Date.now() + 1000, false)));
        const began = process.hrtime.bigint();
        const until = Date.now() + Number(durationText);
        await Promise.all(Array.from({ length: clients }, () => loop(until, true)));
        seconds = Number(process.hrtime.bigint() - began) / 1e9;
      }
      await pool.close();
      latencies.sort((a, b) => a - b);
      const pick = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
      process.stdout.write(JSON.stringify({
        rps: latencies.length / seconds,
        p50Ms: pick(0.5),
        p99Ms: pick(0.99),
        answers: latencies.length,
        bytesPerAnswer: latencies.length ? bytes / latencies.length : 0,
      }));
    })().catch((error) => {
      console.error(error.message);
      process.exit(1);
    });
  `;
  const child = spawn(
    process.execPath,
    [
      '-e',
      script,
      origin,
      options.listFile,
      String(options.clients),
      options.mode,
      String(options.durationMs ?? 5_000),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`artwork load generator exited with ${code}`);
  return JSON.parse(output) as LoadFigures;
}
