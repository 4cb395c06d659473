import { Cron } from 'croner';
import type { Logger } from '../logger.js';

export interface ScheduledTask {
  /** Unique within a scheduler, e.g. 'policy.refresh'. Also the name of the cluster-wide lock. */
  name: string;
  /** croner pattern (6-field with seconds allowed, e.g. '*\/30 * * * * *'), or an interval. */
  schedule: { cron: string; timezone?: string } | { everyMs: number };
  /** When true (default), only one instance cluster-wide runs it at a time (uses the lock). */
  exclusive?: boolean;
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Runs `fn` while holding the cluster-wide lock named after the task, or does not run it (`{ ran: false }`) when
 * another holder has it. Should not wait for the lock: a busy lock means the task is being done elsewhere.
 */
export type TaskLock = <T>(
  taskName: string,
  fn: () => Promise<T>,
) => Promise<{ ran: true; value: T } | { ran: false }>;

export interface TaskStatus {
  name: string;
  /** Times run() was called in this process. */
  runs: number;
  /** Attempts that failed: run() threw/rejected, or the lock function itself failed. */
  failures: number;
  /** Attempts not run: the previous run was still going here, or another instance held the lock. */
  skipped: number;
  /** An attempt is in progress in this process. */
  running: boolean;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  /** Error of the most recent failed attempt; null again after a successful run. */
  lastError: string | null;
  /** Next scheduled attempt, null while the scheduler is not started. */
  nextRunAt: string | null;
}

export interface TaskSchedulerOptions {
  logger: Logger;
  /** Cluster-wide exclusivity. Without it, exclusivity is per process only. */
  lock?: TaskLock;
  /** How long stop() waits for aborted runs to finish. Default 10 s. */
  stopTimeoutMs?: number;
}

/** setInterval cannot wait longer than this (longer delays silently become 1 ms). */
const MAX_INTERVAL_MS = 2_147_483_647;

interface TaskEntry {
  task: ScheduledTask;
  cron: Cron | undefined;
  interval: NodeJS.Timeout | undefined;
  nextIntervalAt: number | null;
  /** The attempt in progress (lock + run), so stop() can wait for it. */
  current: Promise<'ran' | 'skipped'> | undefined;
  controller: AbortController | undefined;
  runs: number;
  failures: number;
  skipped: number;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastError: string | null;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Marks an error of the task itself, so runNow can tell it from a failure of the lock. */
class TaskRunError extends Error {
  constructor(readonly original: unknown) {
    super(errorMessage(original));
  }
}

/**
 * Runs named background tasks on croner patterns or fixed intervals. A task never overlaps itself in this process;
 * exclusive tasks (the default) also go through the injected lock so that only one instance runs them at a time.
 * Failures are logged and counted, and the schedule goes on.
 */
export class TaskScheduler {
  private readonly entries = new Map<string, TaskEntry>();
  private readonly logger: Logger;
  private readonly lock: TaskLock | undefined;
  private readonly stopTimeoutMs: number;
  private state: 'idle' | 'started' | 'stopped' = 'idle';

  constructor(options: TaskSchedulerOptions) {
    this.logger = options.logger;
    this.lock = options.lock;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  }

  /** Adds a task; throws on a duplicate name or an invalid schedule. Tasks added after start() start at once. */
  register(task: ScheduledTask): void {
    if (!task.name) throw new Error('task name must not be empty');
    if (this.entries.has(task.name)) throw new Error(`task ${task.name} is already registered`);
    if ('cron' in task.schedule) {
      // Parses the pattern and the time zone now, so a mistake fails at registration, not at start.
      const probe = new Cron(task.schedule.cron, { paused: true, timezone: task.schedule.timezone });
      try {
        probe.nextRun();
      } finally {
        probe.stop();
      }
    } else {
      const { everyMs } = task.schedule;
      if (!Number.isFinite(everyMs) || everyMs < 1 || everyMs > MAX_INTERVAL_MS) {
        throw new Error(`task ${task.name}: everyMs must be between 1 and ${MAX_INTERVAL_MS}`);
      }
    }
    const entry: TaskEntry = {
      task,
      cron: undefined,
      interval: undefined,
      nextIntervalAt: null,
      current: undefined,
      controller: undefined,
      runs: 0,
      failures: 0,
      skipped: 0,
      lastStartedAt: null,
      lastFinishedAt: null,
      lastError: null,
    };
    this.entries.set(task.name, entry);
    if (this.state === 'started') this.schedule(entry);
  }

  /** Starts every registered task's timer. Calling it again while started does nothing. */
  start(): void {
    if (this.state === 'started') return;
    this.state = 'started';
    for (const entry of this.entries.values()) this.schedule(entry);
  }

  /**
   * Runs a task now (still respects the lock and never overlaps itself); resolves when done: 'ran', or 'skipped'
   * when it was already running here or another instance holds the lock. Rejects with the task's error when the
   * run fails (after logging and counting it, as for scheduled runs), and for an unknown name or a stopped
   * scheduler.
   */
  async runNow(name: string): Promise<'ran' | 'skipped'> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no task named ${name}`);
    if (this.state === 'stopped') throw new Error('task scheduler is stopped');
    try {
      return await this.attempt(entry, 'manual');
    } catch (err) {
      throw err instanceof TaskRunError ? err.original : err;
    }
  }

  status(): TaskStatus[] {
    return [...this.entries.values()].map((entry) => ({
      name: entry.task.name,
      runs: entry.runs,
      failures: entry.failures,
      skipped: entry.skipped,
      running: entry.current !== undefined,
      lastStartedAt: entry.lastStartedAt,
      lastFinishedAt: entry.lastFinishedAt,
      lastError: entry.lastError,
      nextRunAt: this.nextRunAt(entry),
    }));
  }

  /** Stops timers, aborts running tasks' signals and waits for them to finish (at most stopTimeoutMs). */
  async stop(): Promise<void> {
    this.state = 'stopped';
    const running: Promise<unknown>[] = [];
    for (const entry of this.entries.values()) {
      this.unschedule(entry);
      if (entry.current) {
        entry.controller?.abort(new Error('task scheduler stopping'));
        running.push(entry.current.catch(() => undefined));
      }
    }
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(running).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), this.stopTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      const names = [...this.entries.values()].filter((e) => e.current !== undefined).map((e) => e.task.name);
      this.logger.warn({ tasks: names }, 'tasks still running after stop timeout');
    }
  }

  private schedule(entry: TaskEntry): void {
    const { schedule } = entry.task;
    if ('cron' in schedule) {
      entry.cron = new Cron(schedule.cron, { timezone: schedule.timezone }, () => {
        void this.attempt(entry, 'schedule').catch(() => undefined);
      });
    } else {
      entry.nextIntervalAt = Date.now() + schedule.everyMs;
      entry.interval = setInterval(() => {
        entry.nextIntervalAt = Date.now() + schedule.everyMs;
        void this.attempt(entry, 'schedule').catch(() => undefined);
      }, schedule.everyMs);
    }
  }

  private unschedule(entry: TaskEntry): void {
    entry.cron?.stop();
    entry.cron = undefined;
    if (entry.interval) clearInterval(entry.interval);
    entry.interval = undefined;
    entry.nextIntervalAt = null;
  }

  private nextRunAt(entry: TaskEntry): string | null {
    if (entry.cron) return entry.cron.nextRun()?.toISOString() ?? null;
    return entry.nextIntervalAt === null ? null : new Date(entry.nextIntervalAt).toISOString();
  }

  /**
   * One attempt: skipped when still running here, otherwise run (under the lock for exclusive tasks). Failures are
   * logged and counted here; the returned promise rejects with a TaskRunError (task failed) or the lock's error.
   */
  private attempt(entry: TaskEntry, trigger: 'schedule' | 'manual'): Promise<'ran' | 'skipped'> {
    const { name } = entry.task;
    if (entry.current) {
      entry.skipped += 1;
      this.logger.debug({ task: name, trigger }, 'task skipped: previous run still in progress');
      return Promise.resolve('skipped');
    }
    const controller = new AbortController();
    entry.controller = controller;
    // Started on the next microtask, so `current` is set before any of the task's code runs.
    const current = Promise.resolve()
      .then(() => this.lockAndRun(entry, controller.signal, trigger))
      .finally(() => {
        entry.current = undefined;
        entry.controller = undefined;
      });
    entry.current = current;
    return current;
  }

  private async lockAndRun(
    entry: TaskEntry,
    signal: AbortSignal,
    trigger: 'schedule' | 'manual',
  ): Promise<'ran' | 'skipped'> {
    const { name } = entry.task;
    if (entry.task.exclusive === false || !this.lock) {
      await this.execute(entry, signal, trigger);
      return 'ran';
    }
    let outcome: { ran: true; value: void } | { ran: false };
    try {
      outcome = await this.lock(name, () => this.execute(entry, signal, trigger));
    } catch (err) {
      if (err instanceof TaskRunError) throw err;
      entry.failures += 1;
      entry.lastError = `lock failed: ${errorMessage(err)}`;
      this.logger.error({ task: name, err }, `task ${name}: lock failed: ${errorMessage(err)}`);
      throw err;
    }
    if (!outcome.ran) {
      entry.skipped += 1;
      this.logger.debug({ task: name, trigger }, 'task skipped: another instance holds its lock');
      return 'skipped';
    }
    return 'ran';
  }

  /** Calls run() once, recording the outcome. Rejects with TaskRunError when the task fails. */
  private async execute(
    entry: TaskEntry,
    signal: AbortSignal,
    trigger: 'schedule' | 'manual',
  ): Promise<void> {
    const { name } = entry.task;
    const started = Date.now();
    entry.runs += 1;
    entry.lastStartedAt = new Date(started).toISOString();
    try {
      await entry.task.run(signal);
      entry.lastError = null;
      this.logger.debug({ task: name, trigger, durationMs: Date.now() - started }, 'task finished');
    } catch (err) {
      entry.failures += 1;
      entry.lastError = errorMessage(err);
      const durationMs = Date.now() - started;
      if (signal.aborted) {
        this.logger.warn({ task: name, durationMs, err }, `task ${name} aborted: ${entry.lastError}`);
      } else {
        this.logger.error({ task: name, durationMs, err }, `task ${name} failed: ${entry.lastError}`);
      }
      throw new TaskRunError(err);
    } finally {
      entry.lastFinishedAt = new Date().toISOString();
    }
  }
}
