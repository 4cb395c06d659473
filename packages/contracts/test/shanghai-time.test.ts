import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  SHANGHAI_OFFSET_MS,
  SHANGHAI_TIME_ZONE,
  fromShanghaiWallClock,
  shanghaiDate,
  shanghaiDaysSinceMonday,
  shanghaiIso,
  shanghaiMinute,
  shanghaiMonth,
  shanghaiParts,
  startOfShanghaiDay,
  startOfShanghaiMonth,
  startOfShanghaiWeek,
} from '../src/shanghai-time.js';

const at = (iso: string) => Date.parse(iso);

describe('Asia/Shanghai calendar', () => {
  it('turns the day at 16:00 UTC', () => {
    expect(shanghaiDate(at('2024-03-05T15:59:59.999Z'))).toBe('2024-03-05');
    expect(shanghaiDate(at('2024-03-05T16:00:00.000Z'))).toBe('2024-03-06');
    expect(startOfShanghaiDay(at('2024-03-05T16:00:00.000Z'))).toBe(at('2024-03-05T16:00:00.000Z'));
    expect(startOfShanghaiDay(at('2024-03-06T15:59:59.999Z'))).toBe(at('2024-03-05T16:00:00.000Z'));
    expect(startOfShanghaiDay(at('2024-03-05T15:59:59.999Z'))).toBe(at('2024-03-04T16:00:00.000Z'));
  });

  it('turns the month and the year at 16:00 UTC of the last day', () => {
    expect(shanghaiMonth(at('2024-02-29T15:59:59.999Z'))).toBe('2024-02');
    expect(shanghaiMonth(at('2024-02-29T16:00:00.000Z'))).toBe('2024-03');
    expect(startOfShanghaiMonth(at('2024-02-29T16:00:00.000Z'))).toBe(at('2024-02-29T16:00:00.000Z'));
    expect(startOfShanghaiMonth(at('2024-02-29T15:00:00.000Z'))).toBe(at('2024-01-31T16:00:00.000Z'));
    expect(startOfShanghaiMonth(at('2024-02-10T00:00:00.000Z'), 1)).toBe(at('2024-02-29T16:00:00.000Z'));
    // December rolls over into January of the next year.
    expect(startOfShanghaiMonth(at('2024-12-15T00:00:00.000Z'), 1)).toBe(at('2024-12-31T16:00:00.000Z'));
    expect(shanghaiDate(at('2024-12-31T16:00:00.000Z'))).toBe('2025-01-01');
  });

  it('starts weeks on Monday 00:00', () => {
    // 2024-03-04 is a Monday.
    expect(shanghaiDaysSinceMonday(at('2024-03-03T16:00:00.000Z'))).toBe(0);
    expect(shanghaiDaysSinceMonday(at('2024-03-03T15:59:59.999Z'))).toBe(6);
    expect(startOfShanghaiWeek(at('2024-03-10T15:59:59.999Z'))).toBe(at('2024-03-03T16:00:00.000Z'));
    expect(startOfShanghaiWeek(at('2024-03-10T16:00:00.000Z'))).toBe(at('2024-03-10T16:00:00.000Z'));
  });

  it('reads and writes wall-clock times with +08:00', () => {
    const instant = at('2024-03-06T12:15:30.250Z');
    expect(shanghaiParts(instant)).toEqual({
      year: 2024,
      month: 3,
      day: 6,
      hour: 20,
      minute: 15,
      second: 30,
      weekday: 3,
    });
    expect(shanghaiIso(instant)).toBe('2024-03-06T20:15:30.250+08:00');
    expect(shanghaiIso(instant, 'second')).toBe('2024-03-06T20:15:30+08:00');
    expect(shanghaiMinute(instant)).toBe('2024-03-06T20:15');
    expect(fromShanghaiWallClock(2024, 3, 6, 20, 15, 30)).toBe(at('2024-03-06T12:15:30.000Z'));
    expect(Date.parse(shanghaiIso(instant))).toBe(instant);
  });

  it('has no daylight saving: the fixed offset agrees with the time-zone database all year', () => {
    const zone = new Intl.DateTimeFormat('en-GB', {
      timeZone: SHANGHAI_TIME_ZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    for (
      let day = at('2023-01-01T00:00:00Z');
      day < at('2027-01-01T00:00:00Z');
      day += 7 * DAY_MS + 3_600_000
    ) {
      const parts = Object.fromEntries(zone.formatToParts(day).map((part) => [part.type, part.value]));
      const ours = shanghaiParts(day);
      expect([Number(parts.year), Number(parts.month), Number(parts.day), Number(parts.hour)]).toEqual([
        ours.year,
        ours.month,
        ours.day,
        ours.hour,
      ]);
    }
    expect(SHANGHAI_OFFSET_MS).toBe(8 * 3_600_000);
  });
});
