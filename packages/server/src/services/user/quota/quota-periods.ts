import type { QuotaPeriod, QuotaUnit } from '@svc/contracts';

/**
 * Quota periods follow the Asia/Shanghai calendar: UTC+8 all year (no daylight saving time since 1991),
 * so a fixed offset is exact and needs no time-zone database.
 */
export const QUOTA_TIME_ZONE = 'Asia/Shanghai';
const OFFSET_MS = 8 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export const UNIT_BYTES: Record<QuotaUnit, number> = { MB: 1024 ** 2, GB: 1024 ** 3 };

export function quotaLimitBytes(amount: number, unit: QuotaUnit): number {
  return Math.floor(amount * UNIT_BYTES[unit]);
}

/** The period containing `nowMs`: day from 00:00, week from Monday 00:00, month from the 1st 00:00. */
export function periodBounds(period: QuotaPeriod, nowMs: number): { start: Date; end: Date } {
  const local = new Date(nowMs + OFFSET_MS);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  const date = local.getUTCDate();
  const midnight = Date.UTC(year, month, date) - OFFSET_MS;
  switch (period) {
    case 'day':
      return { start: new Date(midnight), end: new Date(midnight + DAY_MS) };
    case 'week': {
      const sinceMonday = (local.getUTCDay() + 6) % 7;
      const start = midnight - sinceMonday * DAY_MS;
      return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
    }
    case 'month':
      return {
        start: new Date(Date.UTC(year, month, 1) - OFFSET_MS),
        end: new Date(Date.UTC(year, month + 1, 1) - OFFSET_MS),
      };
  }
}

/** The Asia/Shanghai calendar day of an instant, 'YYYY-MM-DD'. */
export function localDay(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 10);
}
