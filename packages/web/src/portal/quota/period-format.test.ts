import { describe, expect, it } from 'vitest';
import { formatPeriodBoundary } from './period-format.js';

describe('formatPeriodBoundary', () => {
  it('shows the boundary in UTC+8, not in the zone of the browser', () => {
    // 1 Nov 2026 00:00 in Shanghai is 31 Oct 16:00 UTC.
    const text = formatPeriodBoundary('2026-10-31T16:00:00.000Z', 'en-GB');
    expect(text).toContain('1 Nov 2026');
    expect(text).toContain('00:00');
    expect(formatPeriodBoundary('2026-11-01T00:00:00+08:00', 'en-GB')).toBe(text);
  });

  it('formats in Chinese', () => {
    const text = formatPeriodBoundary('2026-12-01T00:00:00+08:00', 'zh-CN');
    expect(text).toContain('2026');
    expect(text).toContain('12');
    expect(text).toContain('00:00');
  });

  it('gives a dash for what is no time', () => {
    expect(formatPeriodBoundary('soon', 'en-GB')).toBe('—');
  });
});
