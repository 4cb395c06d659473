import { describe, expect, it } from 'vitest';
import { secondsToTicks, ticksToSeconds } from './ticks.js';

describe('ticks', () => {
  it('converts seconds to 100 ns ticks', () => {
    expect(secondsToTicks(1)).toBe(10_000_000);
    expect(secondsToTicks(12.3456789)).toBe(123_456_789);
    expect(secondsToTicks(5400)).toBe(54_000_000_000);
  });

  it('gives 0 for positions a video element may hold before it knows them', () => {
    expect(secondsToTicks(Number.NaN)).toBe(0);
    expect(secondsToTicks(Number.POSITIVE_INFINITY)).toBe(0);
    expect(secondsToTicks(-3)).toBe(0);
  });

  it('converts ticks back to seconds', () => {
    expect(ticksToSeconds(36_000_000_000)).toBe(3600);
    expect(ticksToSeconds(-1)).toBe(0);
  });
});
