import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPLAY_TIME_ZONE, formatDateTime } from './format.js';
import { setLanguage } from './i18n.js';

// Whatever zone the browser (here: the test process) is in, times read in Asia/Shanghai.
const processZone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  if (processZone === undefined) delete process.env.TZ;
  else process.env.TZ = processZone;
  setLanguage('en');
});

describe('formatDateTime: one zone for every page', () => {
  it('is Asia/Shanghai', () => {
    expect(DISPLAY_TIME_ZONE).toBe('Asia/Shanghai');
  });

  it('shows an instant at UTC+8, not in the zone of the browser', () => {
    setLanguage('en');
    // 1 Nov 2026 00:00 in Shanghai is 31 Oct 16:00 UTC (and 12:00 in New York).
    const text = formatDateTime('2026-10-31T16:00:00.000Z');
    expect(text).toContain('1 Nov 2026');
    expect(text).toContain('00:00:00');
    expect(formatDateTime('2026-11-01T00:00:00+08:00')).toBe(text);
  });

  it('shows a quota period boundary to the minute, in Chinese too', () => {
    setLanguage('en');
    expect(formatDateTime('2026-10-31T16:00:00.000Z', 'minute')).toBe('1 Nov 2026, 00:00');
    setLanguage('zh');
    const text = formatDateTime('2026-12-01T00:00:00+08:00', 'minute');
    expect(text).toContain('2026年12月1日');
    expect(text).toContain('00:00');
    expect(text).not.toContain('00:00:00');
  });

  it('gives a dash for what is no time', () => {
    expect(formatDateTime('soon')).toBe('—');
    expect(formatDateTime(null)).toBe('—');
  });
});
