import { describe, expect, it } from 'vitest';
import { cacheDecision } from '../../../../src/services/play-agent/vfs/cache-decision.js';
import { entryBadge } from '../../../../src/services/play-agent/vfs/entry-badge.js';

const now = Date.parse('2026-06-01T00:00:00Z');
const base = { skipReleasedBeforeDays: 0, forcePopularViewers: 0, now };

describe('skip by release date and force for popular content', () => {
  it('skips titles released more than the set number of days ago; 0 turns it off', () => {
    const old = { ...base, releaseDate: '2026-01-01', skipReleasedBeforeDays: 100 };
    expect(cacheDecision(old)).toBe('skip');
    expect(cacheDecision({ ...old, releaseDate: '2026-05-01' })).toBe('cache');
    expect(cacheDecision({ ...old, skipReleasedBeforeDays: 0 })).toBe('cache');
    // Exactly the limit is not older than it.
    expect(cacheDecision({ ...old, releaseDate: '2026-02-21T00:00:00Z' })).toBe('cache');
    expect(cacheDecision({ ...old, releaseDate: '2026-02-20T23:59:59Z' })).toBe('skip');
  });

  it('never skips without a readable release date', () => {
    const rule = { ...base, skipReleasedBeforeDays: 1 };
    expect(cacheDecision({ ...rule, releaseDate: null })).toBe('cache');
    expect(cacheDecision({ ...rule })).toBe('cache');
    expect(cacheDecision({ ...rule, releaseDate: 'soon' })).toBe('cache');
  });

  it('forces popular titles even when the release date would skip them; 0 turns it off', () => {
    const rule = { ...base, releaseDate: '1990-01-01', skipReleasedBeforeDays: 30, forcePopularViewers: 5 };
    expect(cacheDecision({ ...rule, viewersLastDay: 5 })).toBe('force');
    expect(cacheDecision({ ...rule, viewersLastDay: 4 })).toBe('skip');
    expect(cacheDecision({ ...rule, viewersLastDay: null })).toBe('skip');
    expect(cacheDecision({ ...rule, forcePopularViewers: 0, viewersLastDay: 1000 })).toBe('skip');
    expect(cacheDecision({ ...base, forcePopularViewers: 1, viewersLastDay: 1 })).toBe('force');
  });
});

describe('entry badges', () => {
  const smart = [
    { start: 0, end: 99 },
    { start: 900, end: 999 },
  ];
  const idle = { inUse: false, writeError: null, smartRanges: null, ranges: [] };

  it('shows PLAYING first, then CACHE_FAILED, SMART_READY and BASIC_HEAD_TAIL', () => {
    expect(
      entryBadge({ ...idle, inUse: true, writeError: 'ENOSPC', smartRanges: smart, ranges: smart }),
    ).toBe('PLAYING');
    expect(entryBadge({ ...idle, writeError: 'ENOSPC', smartRanges: smart, ranges: smart })).toBe(
      'CACHE_FAILED',
    );
    expect(entryBadge({ ...idle, smartRanges: smart, ranges: [{ start: 0, end: 999 }] })).toBe('SMART_READY');
    expect(entryBadge(idle)).toBe('BASIC_HEAD_TAIL');
  });

  it('is SMART_READY only when every range of the smart plan is recorded', () => {
    expect(entryBadge({ ...idle, smartRanges: smart, ranges: [{ start: 0, end: 99 }] })).toBe(
      'BASIC_HEAD_TAIL',
    );
    expect(
      entryBadge({
        ...idle,
        smartRanges: smart,
        ranges: [
          { start: 0, end: 99 },
          { start: 900, end: 998 },
        ],
      }),
    ).toBe('BASIC_HEAD_TAIL');
    expect(entryBadge({ ...idle, smartRanges: [], ranges: [{ start: 0, end: 9 }] })).toBe('BASIC_HEAD_TAIL');
  });
});
