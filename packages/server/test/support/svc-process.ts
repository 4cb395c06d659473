import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SVC_BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/svc.mjs');

export interface SvcProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Pids of every process the supervisor reported starting. */
  childPids(): number[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Waits until the output shows `pattern`; fails when the program exits first or stays silent for
   * `silenceMs` (60 s). A slow start on a busy machine keeps going: the supervisor logs every 15 s what a
   * starting process is on, so the wait lasts as long as the start makes progress.
   */
  waitForLog(pattern: RegExp, silenceMs?: number): Promise<void>;
}

/** Runs the built svc program with the given environment (on top of a minimal one). */
export function runSvc(args: string[], env: Record<string, string>): SvcProcess {
  if (!existsSync(SVC_BUNDLE)) throw new Error(`${SVC_BUNDLE} is missing: run npm run build first`);
  const child = spawn(process.execPath, [SVC_BUNDLE, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    childPids: () =>
      [...out.matchAll(/"process":"[^"]+","pid":(\d+),"msg":"process (?:starting|restarting)"/g)].map((m) =>
        Number(m[1]),
      ),
    exited,
    waitForLog: (pattern, silenceMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(out)) return resolve();
        const silence = () =>
          setTimeout(() => {
            listeners.delete(check);
            reject(
              new Error(
                `log did not show ${pattern}: no output for ${silenceMs} ms; stderr: ${err}; stdout tail: ${out.slice(-2000)}`,
              ),
            );
          }, silenceMs);
        let timer = silence();
        const check = () => {
          clearTimeout(timer);
          if (pattern.test(out)) {
            listeners.delete(check);
            resolve();
          } else {
            timer = silence();
          }
        };
        listeners.add(check);
        void exited.then(() => {
          if (!pattern.test(out)) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`svc exited before ${pattern}; stderr: ${err}`));
          }
        });
      }),
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
