import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { createLogger, type Logger } from '../../../src/platform/logger.js';
import type { Clock } from '../../../src/platform/cache/index.js';
import { waitUntil } from '../../support/wait.js';

export interface LogRecord {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose lines are kept in memory. */
export function captureLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = createLogger({
    level: 'debug',
    component: 'test',
    destination: { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) },
  });
  return { logger, records };
}

export const WARN = 40;
export const INFO = 30;

export class FakeClock implements Clock {
  constructor(private time = 1_700_000_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the condition holds; throws after timeoutMs. */
export const waitFor = (
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = 'condition',
): Promise<void> => waitUntil(condition, what, timeoutMs);

/** A loopback port nothing listens on (at the time of asking). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function redisServerAvailable(): boolean {
  const result = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

async function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}

/** A throwaway redis-server on a loopback port, without persistence. */
export class RedisServerProcess {
  private child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    await waitFor(
      async () => {
        if (exited) throw new Error(`redis-server on port ${this.port} exited during start`);
        return pingOnce(this.port);
      },
      10_000,
      `redis-server on port ${this.port}`,
    );
  }

  /** SIGSTOP / SIGCONT: the server keeps its sockets open but stops answering. */
  pause(paused: boolean): void {
    this.child?.kill(paused ? 'SIGSTOP' : 'SIGCONT');
  }

  /** SIGKILL, and wait until the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT'); // in case a test left it paused
    child.kill('SIGKILL');
    await exited;
  }
}
