import { describe, expect, it } from 'vitest';
import {
  bucketLabel,
  bucketTitle,
  changeDirection,
  formatChangeRate,
  formatRatio,
  formatWatchMs,
  msToHours,
  shanghaiDateTime,
} from './report-format.js';

describe('report formatting', () => {
  it('writes watch time in seconds, minutes or hours in both languages', () => {
    expect(formatWatchMs(0, 'en')).toBe('0 s');
    expect(formatWatchMs(45_400, 'en')).toBe('45 s');
    expect(formatWatchMs(12 * 60_000, 'en')).toBe('12 min');
    expect(formatWatchMs(3 * 3_600_000 + 5 * 60_000, 'en')).toBe('3 h 5 min');
    expect(formatWatchMs(2 * 3_600_000, 'en')).toBe('2 h');
    expect(formatWatchMs(1204 * 3_600_000 + 59 * 60_000, 'en')).toBe('1,204 h');
    expect(formatWatchMs(3 * 3_600_000 + 5 * 60_000, 'zh')).toBe('3 小时 5 分钟');
    expect(formatWatchMs(30_000, 'zh')).toBe('30 秒');
  });

  it('gives the change direction and rate; no rate without a previous value', () => {
    expect(changeDirection(0.25)).toBe('up');
    expect(changeDirection(-0.1)).toBe('down');
    expect(changeDirection(0)).toBe('flat');
    expect(changeDirection(null)).toBe('none');
    expect(formatChangeRate(0.25, 'en')).toBe('+25.0%');
    expect(formatChangeRate(-0.032, 'en')).toBe('-3.2%');
    expect(formatChangeRate(0, 'en')).toBe('0.0%');
    expect(formatChangeRate(null, 'en')).toBe('—');
    expect(formatRatio(0.5, 'zh', 0)).toBe('50%');
    expect(formatRatio(null, 'en')).toBe('—');
  });

  it('labels buckets in Shanghai time by granularity', () => {
    const at = '2024-03-06T12:30:00Z'; // 20:30 in Shanghai
    expect(bucketLabel(at, 'halfHour')).toBe('03-06 20:30');
    expect(bucketLabel(at, 'hour')).toBe('03-06 20:30');
    expect(bucketLabel('2024-03-06T00:00:00+08:00', 'day')).toBe('03-06');
    expect(bucketLabel('2024-03-04T00:00:00+08:00', 'week')).toBe('03-04');
    expect(bucketLabel('2024-03-01T00:00:00+08:00', 'month')).toBe('2024-03');
    expect(bucketTitle(at, 'hour')).toBe('2024-03-06 20:30');
    expect(bucketTitle('2024-03-01T00:00:00+08:00', 'month')).toBe('2024-03');
    expect(shanghaiDateTime('2024-02-29T16:00:00Z')).toBe('2024-03-01 00:00');
    expect(msToHours(5_400_000)).toBe(1.5);
  });
});
