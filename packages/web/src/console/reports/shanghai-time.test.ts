import { describe, expect, it } from 'vitest';
import {
  fromShanghaiInput,
  shanghaiDate,
  shanghaiIso,
  shanghaiParts,
  startOfShanghaiDay,
  toShanghaiInput,
} from './shanghai-time.js';

describe('Shanghai time', () => {
  it('reads calendar parts at UTC+8 whatever the instant is written in', () => {
    // 16:30 UTC is 00:30 the next day in Shanghai.
    expect(shanghaiParts(new Date('2024-02-29T16:30:00Z'))).toEqual({
      year: 2024,
      month: 3,
      day: 1,
      hour: 0,
      minute: 30,
      second: 0,
      weekday: 5,
    });
    expect(shanghaiDate(new Date('2024-12-31T15:59:59Z'))).toBe('2024-12-31');
    expect(shanghaiDate(new Date('2024-12-31T16:00:00Z'))).toBe('2025-01-01');
    expect(shanghaiIso(new Date('2024-03-06T12:15:30.250Z'))).toBe('2024-03-06T20:15:30+08:00');
  });

  it('finds Shanghai midnight', () => {
    expect(startOfShanghaiDay(new Date('2024-03-06T15:59:00Z')).toISOString()).toBe(
      '2024-03-05T16:00:00.000Z',
    );
    expect(startOfShanghaiDay(new Date('2024-03-06T16:00:00Z')).toISOString()).toBe(
      '2024-03-06T16:00:00.000Z',
    );
    expect(startOfShanghaiDay(new Date('1969-12-31T20:00:00Z')).toISOString()).toBe(
      '1969-12-31T16:00:00.000Z',
    );
  });

  it('round-trips date-time input values as Shanghai wall-clock time', () => {
    const instant = fromShanghaiInput('2024-03-01T00:00');
    expect(instant?.toISOString()).toBe('2024-02-29T16:00:00.000Z');
    expect(toShanghaiInput(instant ?? new Date(0))).toBe('2024-03-01T00:00');
    expect(fromShanghaiInput('2024-03-01T08:05:09')?.toISOString()).toBe('2024-03-01T00:05:09.000Z');
  });

  it('refuses values that are not a real date and time', () => {
    for (const value of ['', '2024-03-01', '2023-02-29T10:00', '2024-13-01T00:00', '2024-03-01T24:00', 'x']) {
      expect(fromShanghaiInput(value), value).toBeUndefined();
    }
  });
});
