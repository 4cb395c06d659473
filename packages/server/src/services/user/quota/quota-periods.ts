import {
  DAY_MS,
  SHANGHAI_TIME_ZONE,
  shanghaiDate,
  startOfShanghaiDay,
  startOfShanghaiMonth,
  startOfShanghaiWeek,
  type QuotaPeriod,
  type QuotaUnit,
} from '@svc/contracts';

/** Quota periods follow the Asia/Shanghai calendar (contracts shanghai-time.ts). */
export const QUOTA_TIME_ZONE = SHANGHAI_TIME_ZONE;

export const UNIT_BYTES: Record<QuotaUnit, number> = { MB: 1024 ** 2, GB: 1024 ** 3 };

export function quotaLimitBytes(amount: number, unit: QuotaUnit): number {
  return Math.floor(amount * UNIT_BYTES[unit]);
}

/** The period containing `nowMs`: day from 00:00, week from Monday 00:00, month from the 1st 00:00. */
export function periodBounds(period: QuotaPeriod, nowMs: number): { start: Date; end: Date } {
  switch (period) {
    case 'day': {
      const start = startOfShanghaiDay(nowMs);
      return { start: new Date(start), end: new Date(start + DAY_MS) };
    }
    case 'week': {
      const start = startOfShanghaiWeek(nowMs);
      return { start: new Date(start), end: new Date(start + 7 * DAY_MS) };
    }
    case 'month':
      return {
        start: new Date(startOfShanghaiMonth(nowMs)),
        end: new Date(startOfShanghaiMonth(nowMs, 1)),
      };
  }
}

/** The Asia/Shanghai calendar day of an instant, 'YYYY-MM-DD'. */
export const localDay = shanghaiDate;
