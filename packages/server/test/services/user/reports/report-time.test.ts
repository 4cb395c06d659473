import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  bucketStart,
  bucketStarts,
  effectiveGranularity,
  formatShanghai,
  resolveWindow,
  shanghaiWeekday,
} from '../../../../src/services/user/reports/report-time.js';
import { refBucket, refGranularity, refIso, refPresetWindow, refWeekday } from './reference.js';
import { Random } from './report-fixtures.js';

const at = (local: string) => Date.parse(`${local}+08:00`);

describe('report time helpers (Asia/Shanghai)', () => {
  it('applies the span rule', () => {
    expect(effectiveGranularity(0, 'month')).toBe('halfHour');
    expect(effectiveGranularity(DAY_MS - 1, 'day')).toBe('halfHour');
    expect(effectiveGranularity(DAY_MS, 'halfHour')).toBe('hour');
    expect(effectiveGranularity(DAY_MS, 'month')).toBe('hour');
    expect(effectiveGranularity(DAY_MS + 1, 'halfHour')).toBe('hour');
    expect(effectiveGranularity(DAY_MS + 1, 'day')).toBe('day');
    expect(effectiveGranularity(30 * DAY_MS, 'week')).toBe('week');
    expect(effectiveGranularity(30 * DAY_MS, 'month')).toBe('month');
    expect(effectiveGranularity(30 * DAY_MS, 'hour')).toBe('hour');
    expect(effectiveGranularity(30 * DAY_MS, 'Day')).toBe('hour');
    expect(effectiveGranularity(30 * DAY_MS, undefined)).toBe('hour');
  });

  it('aligns buckets on the Shanghai clock: Monday weeks, calendar months', () => {
    const instant = at('2024-03-03T23:59:59.999'); // a Sunday
    expect(formatShanghai(bucketStart(instant, 'halfHour'))).toBe('2024-03-03T23:30:00.000+08:00');
    expect(formatShanghai(bucketStart(instant, 'hour'))).toBe('2024-03-03T23:00:00.000+08:00');
    expect(formatShanghai(bucketStart(instant, 'day'))).toBe('2024-03-03T00:00:00.000+08:00');
    expect(formatShanghai(bucketStart(instant, 'week'))).toBe('2024-02-26T00:00:00.000+08:00');
    expect(formatShanghai(bucketStart(instant, 'month'))).toBe('2024-03-01T00:00:00.000+08:00');
    expect(formatShanghai(bucketStart(at('2024-03-04T00:00:00.000'), 'week'))).toBe(
      '2024-03-04T00:00:00.000+08:00',
    );
    expect(
      bucketStarts(at('2024-01-31T12:00:00'), at('2024-04-01T00:00:00'), 'month').map(formatShanghai),
    ).toEqual([
      '2024-01-01T00:00:00.000+08:00',
      '2024-02-01T00:00:00.000+08:00',
      '2024-03-01T00:00:00.000+08:00',
    ]);
    expect(bucketStarts(at('2024-01-01T00:00:00'), at('2024-01-01T00:00:00'), 'hour')).toEqual([]);
    expect(shanghaiWeekday(at('2024-03-04T00:00:00'))).toBe(0);
    expect(shanghaiWeekday(at('2024-03-03T23:59:59.999'))).toBe(6);
  });

  it('agrees with the Intl-based reference on random instants', () => {
    const random = new Random(7);
    for (let round = 0; round < 3000; round += 1) {
      const ms = Date.UTC(2019, 0, 1) + Math.floor(random.next() * 8 * 365 * DAY_MS);
      expect(formatShanghai(ms)).toBe(refIso(ms));
      expect(shanghaiWeekday(ms)).toBe(refWeekday(ms));
      for (const granularity of ['halfHour', 'hour', 'day', 'week', 'month'] as const) {
        expect(bucketStart(ms, granularity)).toBe(refBucket(ms, granularity));
      }
      const span = random.pick([DAY_MS - 1, DAY_MS, DAY_MS + 1, random.int(0, 40 * DAY_MS)]);
      const requested = random.pick(['halfHour', 'hour', 'day', 'week', 'month', 'x', undefined]);
      expect(effectiveGranularity(span, requested)).toBe(refGranularity(span, requested));
      for (const preset of [
        'lastNight',
        'today',
        'yesterday',
        'last24h',
        'last7d',
        'last30d',
        'last90d',
      ] as const) {
        const window = resolveWindow({ preset }, ms);
        expect({ from: window.from, to: window.to }).toEqual(refPresetWindow(preset, ms));
        expect(window.previousFrom).toBe(window.from - (window.to - window.from));
      }
    }
  });

  it('resolves the presets at the edges of a Shanghai day', () => {
    const midnight = at('2024-03-01T00:00:00.000');
    const show = (preset: Parameters<typeof resolveWindow>[0]['preset'], now: number) => {
      const window = resolveWindow({ preset }, now);
      return [formatShanghai(window.from), formatShanghai(window.to)];
    };
    expect(show('lastNight', midnight)).toEqual([
      '2024-02-29T21:00:00.000+08:00',
      '2024-03-01T00:00:00.000+08:00',
    ]);
    expect(show('lastNight', midnight - 1)).toEqual([
      '2024-02-28T21:00:00.000+08:00',
      '2024-02-29T00:00:00.000+08:00',
    ]);
    expect(show('today', midnight)).toEqual([
      '2024-03-01T00:00:00.000+08:00',
      '2024-03-01T00:00:00.000+08:00',
    ]);
    expect(show('today', midnight - 1)).toEqual([
      '2024-02-29T00:00:00.000+08:00',
      '2024-02-29T23:59:59.999+08:00',
    ]);
    expect(show('yesterday', midnight + 1)).toEqual([
      '2024-02-29T00:00:00.000+08:00',
      '2024-03-01T00:00:00.000+08:00',
    ]);
    expect(show('last24h', midnight)).toEqual([
      '2024-02-29T00:00:00.000+08:00',
      '2024-03-01T00:00:00.000+08:00',
    ]);
    expect(
      resolveWindow({ preset: 'custom', from: '2024-03-01T00:00:00+08:00', to: '2024-03-01T12:00:00Z' }, 0),
    ).toMatchObject({ from: midnight, to: midnight + 20 * 3600_000, previousFrom: midnight - 20 * 3600_000 });
  });
});
