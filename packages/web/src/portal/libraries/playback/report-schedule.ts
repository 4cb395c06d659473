/** What the play-agent is told, in the order Emby clients tell it. */
export type ReportKind = 'start' | 'progress' | 'stop';

export interface ScheduledReport {
  kind: ReportKind;
  positionSeconds: number;
  isPaused: boolean;
}

/** Emby clients report progress about every 10 s while playing. */
export const PROGRESS_INTERVAL_MS = 10_000;

type State = 'idle' | 'playing' | 'paused';

/**
 * When a web player reports to the play-agent (docs/play-agent.md, activity log):
 *
 * - the first `play` of a session → `start`; a `play` after a pause → `progress` (no longer paused);
 * - `pause` while playing → `progress` with `isPaused` (the play-agent then counts no watch time until the
 *   next report);
 * - `tick` (called often, e.g. every second) while playing → `progress` once `intervalMs` passed since the
 *   last report; ticks while paused or before the start report nothing;
 * - `stop` (ended, closed, page left) after a start → `stop`, and the schedule is idle again: the next
 *   `play` is a new session with its own `start`.
 *
 * Pure: the caller passes the time and the position, and sends what is returned.
 */
export class ReportSchedule {
  private state: State = 'idle';
  private lastReportAt = 0;

  constructor(private readonly intervalMs: number = PROGRESS_INTERVAL_MS) {}

  /** Whether a session was started and not yet stopped. */
  get active(): boolean {
    return this.state !== 'idle';
  }

  play(now: number, positionSeconds: number): ScheduledReport | null {
    if (this.state === 'playing') return null;
    const kind: ReportKind = this.state === 'idle' ? 'start' : 'progress';
    this.state = 'playing';
    return this.report(now, kind, positionSeconds, false);
  }

  pause(now: number, positionSeconds: number): ScheduledReport | null {
    if (this.state !== 'playing') return null;
    this.state = 'paused';
    return this.report(now, 'progress', positionSeconds, true);
  }

  tick(now: number, positionSeconds: number): ScheduledReport | null {
    if (this.state !== 'playing' || now - this.lastReportAt < this.intervalMs) return null;
    return this.report(now, 'progress', positionSeconds, false);
  }

  stop(now: number, positionSeconds: number): ScheduledReport | null {
    if (this.state === 'idle') return null;
    const wasPaused = this.state === 'paused';
    this.state = 'idle';
    return this.report(now, 'stop', positionSeconds, wasPaused);
  }

  private report(now: number, kind: ReportKind, positionSeconds: number, isPaused: boolean): ScheduledReport {
    this.lastReportAt = now;
    return { kind, positionSeconds, isPaused };
  }
}
