import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../platform/logger.js';
import type { ChildMessage } from './process-main.js';
import type { ProcessRole } from './roles.js';

export interface SupervisedProcess {
  /** Process name used in logs and pid files. */
  name: string;
  role: ProcessRole;
}

export interface SupervisorOptions {
  logger: Logger;
  /** Script the children run (the svc program itself). */
  entry: string;
  /** Arguments that make the entry run one role as a child: e.g. ['child', role]. */
  childArgs: (role: ProcessRole) => string[];
  env: NodeJS.ProcessEnv;
  runDir: string;
  /** Start groups in order; the processes of one group start together. */
  groups: SupervisedProcess[][];
  /**
   * Give up on a first start after this long. Unset: wait as long as the process lives (a first start on
   * a busy machine may take minutes), saying every STILL_STARTING_LOG_MS what it is busy with.
   */
  readyTimeoutMs?: number;
}

interface Slot {
  spec: SupervisedProcess;
  child?: ChildProcess;
  startedAt: number;
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** A child that ran this long before dying is restarted with the shortest backoff again. */
const STABLE_AFTER_MS = 60_000;
/** How often a process that is still starting is reported, with the step it is on. */
const STILL_STARTING_LOG_MS = 15_000;

export class StartupError extends Error {}

/**
 * Runs the standalone edition's processes: starts them group by group, restarts any that dies
 * (with exponential backoff), and stops them all on request, leaving no process behind.
 */
export class Supervisor {
  private readonly slots = new Map<string, Slot>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Resolves once every child reported ready; on any start failure stops all and rejects. */
  async start(): Promise<void> {
    mkdirSync(this.options.runDir, { recursive: true });
    try {
      for (const group of this.options.groups) {
        await Promise.all(group.map((spec) => this.launch(spec, true)));
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  pidOf(name: string): number | undefined {
    return this.slots.get(name)?.child?.pid;
  }

  private pidFile(name: string): string {
    return path.join(this.options.runDir, `${name}.pid`);
  }

  private launch(spec: SupervisedProcess, initial: boolean): Promise<void> {
    const { logger } = this.options;
    const slot: Slot = this.slots.get(spec.name) ?? { spec, startedAt: 0, failures: 0 };
    this.slots.set(spec.name, slot);
    const child = fork(this.options.entry, this.options.childArgs(spec.role), {
      env: this.options.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    slot.startedAt = Date.now();
    if (child.pid) writeFileSync(this.pidFile(spec.name), `${child.pid}\n`);
    logger.info({ process: spec.name, pid: child.pid }, initial ? 'process starting' : 'process restarting');

    return new Promise<void>((resolve, reject) => {
      let ready = false;
      let step = 'loading';
      const launchedAt = Date.now();
      const limit = this.options.readyTimeoutMs;
      const timeout =
        limit === undefined
          ? undefined
          : setTimeout(() => {
              if (!ready && initial) {
                reject(
                  new StartupError(
                    `${spec.name} did not become ready within ${limit / 1000} s (at: ${step})`,
                  ),
                );
              }
            }, limit);
      timeout?.unref();
      const stillStarting = setInterval(() => {
        if (ready || this.stopping) return;
        logger.info(
          { process: spec.name, pid: child.pid, seconds: Math.round((Date.now() - launchedAt) / 1000), step },
          'process still starting',
        );
      }, STILL_STARTING_LOG_MS);
      stillStarting.unref();
      const settle = () => {
        clearTimeout(timeout);
        clearInterval(stillStarting);
      };

      child.on('message', (message: ChildMessage) => {
        if (message.type === 'progress') {
          step = message.step;
        } else if (message.type === 'ready') {
          ready = true;
          settle();
          logger.info({ process: spec.name, pid: child.pid }, 'process ready');
          resolve();
        } else if (message.type === 'fatal' && initial) {
          settle();
          reject(new StartupError(message.message));
        }
      });
      child.on('exit', (code, signal) => {
        settle();
        if (slot.child === child) slot.child = undefined;
        if (this.stopping) return;
        if (!ready && initial) {
          reject(new StartupError(`${spec.name} exited during start-up (code ${code ?? signal})`));
          return;
        }
        this.scheduleRestart(slot, code, signal);
      });
    });
  }

  private scheduleRestart(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    const ranMs = Date.now() - slot.startedAt;
    slot.failures = ranMs > STABLE_AFTER_MS ? 1 : slot.failures + 1;
    const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** (slot.failures - 1));
    this.options.logger.warn(
      { process: slot.spec.name, code, signal, restartInMs: delay, failures: slot.failures },
      'process died; restarting',
    );
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (this.stopping) return;
      this.launch(slot.spec, false).catch((error: unknown) => {
        this.options.logger.error(
          { process: slot.spec.name, err: (error as Error).message },
          'restart failed',
        );
      });
    }, delay);
  }

  /**
   * Stops every child, the last started first (the nodes before the control services they report to, so
   * a play-agent's last playback reports and traffic reach the user service): SIGTERM, then SIGKILL after
   * the grace period.
   */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots.values()) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    for (const slot of [...this.slots.values()].reverse()) {
      const child = slot.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => {
          this.options.logger.warn({ process: slot.spec.name }, 'process did not stop in time; killing');
          child.kill('SIGKILL');
        }, graceMs);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    for (const name of this.slots.keys()) rmSync(this.pidFile(name), { force: true });
  }
}

/** One supervisor per data folder: a second start while one runs is refused. */
export function claimSupervisorLock(runDir: string): () => void {
  mkdirSync(runDir, { recursive: true });
  const file = path.join(runDir, 'svc.pid');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new StartupError(`this data folder is already served by svc process ${pid}`);
    }
  }
  writeFileSync(file, `${process.pid}\n`);
  return () => rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
