import { describe, expect, it } from 'vitest';
import { localDay, periodBounds, quotaLimitBytes } from '../../../src/services/user/quota/quota-periods.js';

const at = (iso: string) => Date.parse(iso);
const bounds = (period: 'day' | 'week' | 'month', iso: string) => {
  const { start, end } = periodBounds(period, at(iso));
  return [start.toISOString(), end.toISOString()];
};

describe('quota periods in the Asia/Shanghai calendar', () => {
  it('starts days at 00:00 Shanghai time (16:00 UTC the day before)', () => {
    expect(bounds('day', '2024-05-08T04:00:00Z')).toEqual([
      '2024-05-07T16:00:00.000Z',
      '2024-05-08T16:00:00.000Z',
    ]);
    // 23:59:59.999 in Shanghai is still the same day, 00:00 is the next one.
    expect(bounds('day', '2024-05-08T15:59:59.999Z')[0]).toBe('2024-05-07T16:00:00.000Z');
    expect(bounds('day', '2024-05-08T16:00:00.000Z')[0]).toBe('2024-05-08T16:00:00.000Z');
  });

  it('starts weeks on Monday 00:00', () => {
    // Sunday 2024-05-12 23:00 in Shanghai belongs to the week of Monday 2024-05-06.
    expect(bounds('week', '2024-05-12T15:00:00Z')).toEqual([
      '2024-05-05T16:00:00.000Z',
      '2024-05-12T16:00:00.000Z',
    ]);
    // Monday 00:00 starts the next one.
    expect(bounds('week', '2024-05-12T16:00:00Z')).toEqual([
      '2024-05-12T16:00:00.000Z',
      '2024-05-19T16:00:00.000Z',
    ]);
    // Monday 2024-01-01 07:59 UTC is already Monday 15:59 in Shanghai.
    expect(bounds('week', '2024-01-01T07:59:00Z')[0]).toBe('2023-12-31T16:00:00.000Z');
  });

  it('starts months on the 1st, across year ends and leap days', () => {
    expect(bounds('month', '2024-02-29T12:00:00Z')).toEqual([
      '2024-01-31T16:00:00.000Z',
      '2024-02-29T16:00:00.000Z',
    ]);
    // 2024-02-29T16:30Z is March 1st in Shanghai.
    expect(bounds('month', '2024-02-29T16:30:00Z')[0]).toBe('2024-02-29T16:00:00.000Z');
    expect(bounds('month', '2023-12-31T17:00:00Z')).toEqual([
      '2023-12-31T16:00:00.000Z',
      '2024-01-31T16:00:00.000Z',
    ]);
  });

  it('names the local day and converts amounts with binary units', () => {
    expect(localDay(at('2024-05-08T15:59:59Z'))).toBe('2024-05-08');
    expect(localDay(at('2024-05-08T16:00:00Z'))).toBe('2024-05-09');
    expect(quotaLimitBytes(1.5, 'MB')).toBe(1_572_864);
    expect(quotaLimitBytes(2, 'GB')).toBe(2_147_483_648);
    expect(quotaLimitBytes(1e9, 'GB')).toBe(1e9 * 1024 ** 3);
  });
});
