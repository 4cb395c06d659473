import { describe, expect, it } from 'vitest';
import { headTargetBytes, planStartup } from '../../../../src/services/play-agent/vfs/startup-plan.js';

const MB = 1024 * 1024;
const base = {
  minHeadBytes: 8 * MB,
  minTailBytes: 4 * MB,
  perFileHardCapBytes: 32 * MB,
  probeBudgetBytes: 8 * MB,
};

describe('the SMART_STARTUP plan', () => {
  it('sizes the head to 8 s at the bitrate, never below the minimum head', () => {
    // 20 Mbit/s: 8 s are 20 MB.
    expect(headTargetBytes({ size: 10_000 * MB, bitrate: 20_000_000, index: [], ...base })).toBe(20_000_000);
    // Known duration only: bitrate = size / duration (4 GB over 2 h = ~4.8 Mbit/s → 8 s ≈ 4.8 MB < minimum).
    expect(headTargetBytes({ size: 4_000_000_000, durationSeconds: 7200, index: [], ...base })).toBe(8 * MB);
    expect(headTargetBytes({ size: 4_000_000_000, index: [], ...base })).toBe(8 * MB);
  });

  it('keeps the index before the head beyond its minimum, within the hard cap', () => {
    const size = 10_000 * MB;
    const moov = { start: size - 20 * MB, end: size - 1 };
    const plan = planStartup({ size, bitrate: 40_000_000, index: [moov], ...base });
    expect(plan.kind).toBe('smart');
    // Cap 32 MB: guaranteed head 8 MB, the 20 MB index, then the head grows into the 4 MB left.
    expect(plan.headBytes).toBe(12 * MB);
    expect(plan.bytes).toBe(32 * MB);
    expect(plan.ranges).toEqual([{ start: 0, end: 12 * MB - 1 }, moov]);
  });

  it('truncates an index larger than the cap and adds probe ranges up to the budget', () => {
    const size = 1000 * MB;
    const huge = planStartup({ size, index: [{ start: 500 * MB, end: 600 * MB }], ...base });
    expect(huge.bytes).toBe(32 * MB);
    expect(huge.headBytes).toBe(8 * MB);
    const probed = planStartup({
      size,
      index: [{ start: size - MB, end: size - 1 }],
      probeRanges: [{ start: 100 * MB, end: 120 * MB }],
      ...base,
    });
    expect(probed.bytes).toBe(8 * MB + MB + 8 * MB);
    expect(probed.ranges[1]).toEqual({ start: 100 * MB, end: 108 * MB - 1 });
  });

  it('keeps small files whole at most', () => {
    const plan = planStartup({ size: 1000, index: [{ start: 900, end: 999 }], ...base });
    expect(plan.ranges).toEqual([{ start: 0, end: 999 }]);
    expect(planStartup({ size: 0, index: [], ...base }).ranges).toEqual([]);
  });
});
