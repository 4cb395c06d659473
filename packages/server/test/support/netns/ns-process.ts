import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type { Machine } from './lab.js';

/** iproute2's `ip`, by absolute path: the processes started here may get a PATH without it. */
export const IP = execFileSync('bash', ['-c', 'command -v ip'], { encoding: 'utf8' }).trim();

export interface NsProcess {
  name: string;
  child: ChildProcess;
  /** Standard output and error so far, interleaved. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after graceMs; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs argv inside a machine's namespace with exactly the given environment (`ip netns exec` execs the
 * program, so the child's pid is the program's own).
 */
export function spawnIn(
  machine: Machine,
  name: string,
  argv: string[],
  env: Record<string, string>,
): NsProcess {
  const child = spawn(IP, ['netns', 'exec', machine.netns, ...argv], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  void exited.then(() => {
    done = true;
    for (const listener of listeners) listener();
  });
  return {
    name,
    child,
    output: () => out,
    exited,
    waitForLog: (pattern, timeoutMs = 120_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(`${name}: no ${pattern} within ${timeoutMs} ms; output tail: ${out.slice(-3000)}`),
          );
        }, timeoutMs);
        function check(): void {
          if (pattern.test(out)) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (done) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`${name} exited before ${pattern}; output tail: ${out.slice(-3000)}`));
          }
        }
        listeners.add(check);
        check();
      }),
    stop: async (graceMs = 20_000) => {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a command to its end inside a machine; answers its exit code and output. */
export async function runIn(
  machine: Machine,
  argv: string[],
  env: Record<string, string>,
  timeoutMs = 300_000,
): Promise<{ code: number | null; output: string }> {
  const started = spawnIn(machine, argv[0]!, argv, env);
  const timer = setTimeout(() => started.child.kill('SIGKILL'), timeoutMs);
  const { code } = await started.exited;
  clearTimeout(timer);
  return { code, output: started.output() };
}
