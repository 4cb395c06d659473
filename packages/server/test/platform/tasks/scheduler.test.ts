import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../../src/platform/logger.js';
import { TaskScheduler, type ScheduledTask, type TaskLock } from '../../../src/platform/tasks/index.js';
import { waitUntil } from '../../support/wait.js';

interface LogRecord {
  level: number;
  msg: string;
  task?: string;
  [field: string]: unknown;
}

function captureLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = createLogger({
    level: 'debug',
    component: 'test',
    destination: { write: (line: string) => void records.push(JSON.parse(line) as LogRecord) },
  });
  return { logger, records };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const waitFor = (condition: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> =>
  waitUntil(condition, what, timeoutMs);

/** An in-memory stand-in for the PostgreSQL advisory lock: try-lock, never waits. */
function memoryLock(): { lock: TaskLock; calls: string[] } {
  const held = new Set<string>();
  const calls: string[] = [];
  const lock: TaskLock = async (taskName, fn) => {
    calls.push(taskName);
    if (held.has(taskName)) return { ran: false };
    held.add(taskName);
    try {
      return { ran: true, value: await fn() };
    } finally {
      held.delete(taskName);
    }
  };
  return { lock, calls };
}

const schedulers: TaskScheduler[] = [];
function scheduler(options: ConstructorParameters<typeof TaskScheduler>[0]): TaskScheduler {
  const created = new TaskScheduler(options);
  schedulers.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
});

function statusOf(s: TaskScheduler, name: string) {
  const found = s.status().find((t) => t.name === name);
  if (!found) throw new Error(`no status for ${name}`);
  return found;
}

describe('TaskScheduler', () => {
  it('runs interval tasks repeatedly', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    let runs = 0;
    s.register({
      name: 'tick',
      schedule: { everyMs: 50 },
      run: () => {
        runs += 1;
        return Promise.resolve();
      },
    });
    s.start();
    await waitFor(() => runs >= 3, 2_000, 'three runs');
    expect(statusOf(s, 'tick').runs).toBeGreaterThanOrEqual(3);
  });

  it('keeps the schedule going after failures, logging the task name and error', async () => {
    const { logger, records } = captureLogger();
    const s = scheduler({ logger });
    let attempts = 0;
    s.register({
      name: 'flaky',
      schedule: { everyMs: 30 },
      run: async () => {
        attempts += 1;
        await Promise.resolve();
        if (attempts <= 3) throw new Error(`failure ${attempts}`);
      },
    });
    s.start();
    await waitFor(() => attempts >= 5, 2_000, 'five attempts');
    const status = statusOf(s, 'flaky');
    expect(status.failures).toBe(3);
    expect(status.runs).toBeGreaterThanOrEqual(5);
    expect(status.lastError).toBeNull(); // cleared by the later successful runs
    const errors = records.filter((r) => r.level === 50);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ task: 'flaky', msg: 'task flaky failed: failure 1' });
  });

  it('records lastError of a failing task', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    s.register({
      name: 'broken',
      schedule: { everyMs: 1_000_000 },
      run: () => Promise.reject(new Error('database is gone')),
    });
    await expect(s.runNow('broken')).rejects.toThrow('database is gone');
    expect(statusOf(s, 'broken')).toMatchObject({ runs: 1, failures: 1, lastError: 'database is gone' });
  });

  it('never overlaps a still-running run of the same task; overlapping ticks count as skipped', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    let active = 0;
    let maxActive = 0;
    let completed = 0;
    s.register({
      name: 'slow',
      schedule: { everyMs: 20 },
      run: async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(120);
        active -= 1;
        completed += 1;
      },
    });
    s.start();
    await waitFor(() => completed >= 2, 2_000, 'two completed runs');
    expect(maxActive).toBe(1);
    expect(statusOf(s, 'slow').skipped).toBeGreaterThan(0);
  });

  it('two schedulers sharing one lock never run the same task at the same time', async () => {
    const { lock } = memoryLock();
    const { logger } = captureLogger();
    let active = 0;
    let maxActive = 0;
    let completed = 0;
    const task = (): ScheduledTask => ({
      name: 'policy.refresh',
      schedule: { everyMs: 15 },
      run: async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(40);
        active -= 1;
        completed += 1;
      },
    });
    const a = scheduler({ logger, lock });
    const b = scheduler({ logger, lock });
    a.register(task());
    b.register(task());
    a.start();
    b.start();
    await waitFor(() => completed >= 6, 3_000, 'six completed runs');
    await a.stop();
    await b.stop();
    expect(maxActive).toBe(1);
    const [sa, sb] = [statusOf(a, 'policy.refresh'), statusOf(b, 'policy.refresh')];
    expect(sa.runs + sb.runs).toBe(completed);
    // Each tick that found the lock taken by the other instance counts as skipped.
    expect(sa.skipped + sb.skipped).toBeGreaterThan(0);
  });

  it('counts a lock held elsewhere as skipped, and runNow reports it', async () => {
    const { logger } = captureLogger();
    const busy: TaskLock = () => Promise.resolve({ ran: false });
    const s = scheduler({ logger, lock: busy });
    let runs = 0;
    s.register({
      name: 'elsewhere',
      schedule: { everyMs: 1_000_000 },
      run: () => {
        runs += 1;
        return Promise.resolve();
      },
    });
    expect(await s.runNow('elsewhere')).toBe('skipped');
    expect(runs).toBe(0);
    expect(statusOf(s, 'elsewhere')).toMatchObject({ runs: 0, skipped: 1, failures: 0 });
  });

  it('non-exclusive tasks bypass the lock', async () => {
    const { lock, calls } = memoryLock();
    const { logger } = captureLogger();
    const s = scheduler({ logger, lock });
    s.register({
      name: 'local',
      exclusive: false,
      schedule: { everyMs: 1_000_000 },
      run: () => Promise.resolve(),
    });
    s.register({ name: 'global', schedule: { everyMs: 1_000_000 }, run: () => Promise.resolve() });
    expect(await s.runNow('local')).toBe('ran');
    expect(await s.runNow('global')).toBe('ran');
    expect(calls).toEqual(['global']);
  });

  it('counts a failing lock as a failure and keeps scheduling', async () => {
    const { logger, records } = captureLogger();
    let lockCalls = 0;
    const broken: TaskLock = () => {
      lockCalls += 1;
      return Promise.reject(new Error('connection refused'));
    };
    const s = scheduler({ logger, lock: broken });
    s.register({ name: 'needs-db', schedule: { everyMs: 30 }, run: () => Promise.resolve() });
    s.start();
    await waitFor(() => lockCalls >= 3, 2_000, 'three lock attempts');
    const status = statusOf(s, 'needs-db');
    expect(status.failures).toBeGreaterThanOrEqual(3);
    expect(status.runs).toBe(0);
    expect(status.lastError).toBe('lock failed: connection refused');
    expect(records.some((r) => r.level === 50 && r.task === 'needs-db')).toBe(true);
  });

  it('stop() aborts the running task’s signal and waits for it to finish', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    let started = false;
    let finished = false;
    let sawAbort = false;
    s.register({
      name: 'long',
      schedule: { everyMs: 20 },
      run: async (signal) => {
        started = true;
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        sawAbort = signal.aborted;
        await sleep(50); // cleanup after the abort
        finished = true;
      },
    });
    s.start();
    await waitFor(() => started, 2_000, 'task start');
    expect(statusOf(s, 'long').running).toBe(true);
    await s.stop();
    expect(sawAbort).toBe(true);
    expect(finished).toBe(true);
    const status = statusOf(s, 'long');
    expect(status.running).toBe(false);
    expect(status.nextRunAt).toBeNull();
    const runs = status.runs;
    // An absence has no event to wait for: five periods of the task's 20 ms schedule.
    await sleep(100);
    expect(statusOf(s, 'long').runs).toBe(runs); // timers are gone
    await expect(s.runNow('long')).rejects.toThrow('stopped');
  });

  it('stop() waits only up to its bound for a task that ignores the signal', async () => {
    const { logger, records } = captureLogger();
    const s = scheduler({ logger, stopTimeoutMs: 150 });
    let release: () => void = () => undefined;
    s.register({
      name: 'stubborn',
      schedule: { everyMs: 1_000_000 },
      run: () => new Promise<void>((resolve) => (release = resolve)),
    });
    const run = s.runNow('stubborn');
    await waitFor(() => statusOf(s, 'stubborn').running, 2_000, 'the run to start');
    const started = Date.now();
    await s.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(records.some((r) => r.level === 40 && r.msg === 'tasks still running after stop timeout')).toBe(
      true,
    );
    release();
    expect(await run).toBe('ran');
  });

  it('runNow runs immediately, never overlaps itself, and rejects unknown names', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    let runs = 0;
    s.register({
      name: 'manual',
      schedule: { everyMs: 1_000_000 },
      run: async () => {
        runs += 1;
        await sleep(50);
      },
    });
    const [first, second] = await Promise.all([s.runNow('manual'), s.runNow('manual')]);
    expect([first, second]).toEqual(['ran', 'skipped']);
    expect(runs).toBe(1);
    expect(await s.runNow('manual')).toBe('ran');
    await expect(s.runNow('nope')).rejects.toThrow('no task named nope');
  });

  it('reports status fields', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    let release: () => void = () => undefined;
    s.register({
      name: 'observed',
      schedule: { everyMs: 60_000 },
      run: () => new Promise<void>((resolve) => (release = resolve)),
    });
    s.register({
      name: 'cron',
      schedule: { cron: '0 0 3 * * *', timezone: 'UTC' },
      run: () => Promise.resolve(),
    });

    expect(statusOf(s, 'observed')).toEqual({
      name: 'observed',
      runs: 0,
      failures: 0,
      skipped: 0,
      running: false,
      lastStartedAt: null,
      lastFinishedAt: null,
      lastError: null,
      nextRunAt: null,
    });

    const before = Date.now();
    s.start();
    const next = Date.parse(statusOf(s, 'observed').nextRunAt ?? '');
    expect(next).toBeGreaterThanOrEqual(before + 60_000);
    expect(next).toBeLessThan(before + 61_000);
    const cronNext = new Date(statusOf(s, 'cron').nextRunAt ?? '');
    expect(cronNext.getUTCHours()).toBe(3);
    expect(cronNext.getUTCMinutes()).toBe(0);
    expect(cronNext.getTime()).toBeGreaterThan(before);

    const run = s.runNow('observed');
    await waitFor(() => statusOf(s, 'observed').running, 2_000, 'the run to start');
    const during = statusOf(s, 'observed');
    expect(during.running).toBe(true);
    expect(during.lastStartedAt).not.toBeNull();
    expect(during.lastFinishedAt).toBeNull();
    release();
    await run;
    const after = statusOf(s, 'observed');
    expect(after).toMatchObject({ running: false, runs: 1, failures: 0, skipped: 0, lastError: null });
    expect(Date.parse(after.lastFinishedAt ?? '')).toBeGreaterThanOrEqual(
      Date.parse(after.lastStartedAt ?? ''),
    );
  });

  it('runs a cron pattern with seconds', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    const at: number[] = [];
    s.register({
      name: 'every-second',
      schedule: { cron: '* * * * * *' },
      run: () => {
        at.push(Date.now());
        return Promise.resolve();
      },
    });
    s.start();
    await waitFor(() => at.length >= 2, 2_500, 'two cron runs');
    const [first, second] = at;
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThan(800);
  });

  it('rejects duplicate names and invalid schedules at registration', () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    const run = (): Promise<void> => Promise.resolve();
    s.register({ name: 'once', schedule: { everyMs: 1_000 }, run });
    expect(() => s.register({ name: 'once', schedule: { everyMs: 1_000 }, run })).toThrow(
      'already registered',
    );
    expect(() => s.register({ name: 'bad-cron', schedule: { cron: 'every minute' }, run })).toThrow();
    expect(() =>
      s.register({ name: 'bad-tz', schedule: { cron: '* * * * *', timezone: 'Nowhere/Land' }, run }),
    ).toThrow();
    expect(() => s.register({ name: 'bad-interval', schedule: { everyMs: 0 }, run })).toThrow('everyMs');
    expect(() => s.register({ name: 'too-long', schedule: { everyMs: 2 ** 31 }, run })).toThrow('everyMs');
    expect(s.status().map((t) => t.name)).toEqual(['once']);
  });

  it('starts tasks registered after start()', async () => {
    const { logger } = captureLogger();
    const s = scheduler({ logger });
    s.start();
    let runs = 0;
    s.register({
      name: 'late',
      schedule: { everyMs: 30 },
      run: () => {
        runs += 1;
        return Promise.resolve();
      },
    });
    await waitFor(() => runs >= 2, 2_000, 'two runs of the late task');
  });
});
