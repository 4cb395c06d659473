import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_MS, ReportSchedule } from './report-schedule.js';

describe('ReportSchedule', () => {
  it('reports start on the first play, then progress every interval while playing', () => {
    const schedule = new ReportSchedule();
    expect(schedule.play(0, 0)).toEqual({ kind: 'start', positionSeconds: 0, isPaused: false });
    expect(schedule.tick(1_000, 1)).toBeNull();
    expect(schedule.tick(PROGRESS_INTERVAL_MS - 1, 9.9)).toBeNull();
    expect(schedule.tick(PROGRESS_INTERVAL_MS, 10)).toEqual({
      kind: 'progress',
      positionSeconds: 10,
      isPaused: false,
    });
    expect(schedule.tick(PROGRESS_INTERVAL_MS + 5_000, 15)).toBeNull();
    expect(schedule.tick(2 * PROGRESS_INTERVAL_MS, 20)?.kind).toBe('progress');
  });

  it('reports nothing before a start', () => {
    const schedule = new ReportSchedule();
    expect(schedule.tick(60_000, 3)).toBeNull();
    expect(schedule.pause(60_000, 3)).toBeNull();
    expect(schedule.stop(60_000, 3)).toBeNull();
    expect(schedule.active).toBe(false);
  });

  it('reports a pause at once and a resume as progress, with no ticks while paused', () => {
    const schedule = new ReportSchedule(10_000);
    schedule.play(0, 0);
    expect(schedule.pause(4_000, 4)).toEqual({ kind: 'progress', positionSeconds: 4, isPaused: true });
    expect(schedule.pause(5_000, 4)).toBeNull();
    expect(schedule.tick(60_000, 4)).toBeNull();
    expect(schedule.play(70_000, 4)).toEqual({ kind: 'progress', positionSeconds: 4, isPaused: false });
    // The interval counts from the resume report.
    expect(schedule.tick(75_000, 9)).toBeNull();
    expect(schedule.tick(80_000, 14)?.kind).toBe('progress');
  });

  it('ignores repeated play events while playing (buffering, seeking)', () => {
    const schedule = new ReportSchedule();
    schedule.play(0, 0);
    expect(schedule.play(2_000, 2)).toBeNull();
  });

  it('stops once, and a later play starts a new session', () => {
    const schedule = new ReportSchedule();
    schedule.play(0, 0);
    schedule.pause(3_000, 3);
    expect(schedule.stop(4_000, 3)).toEqual({ kind: 'stop', positionSeconds: 3, isPaused: true });
    expect(schedule.active).toBe(false);
    expect(schedule.stop(5_000, 3)).toBeNull();
    expect(schedule.play(6_000, 0)?.kind).toBe('start');
    expect(schedule.stop(7_000, 1)).toEqual({ kind: 'stop', positionSeconds: 1, isPaused: false });
  });
});
