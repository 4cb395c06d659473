import {
  DAY_MS,
  REPORT_TIME_ZONE,
  shanghaiDaysSinceMonday,
  shanghaiIso,
  shanghaiParts,
  startOfShanghaiDay,
  startOfShanghaiMonth,
  type ReportGranularity,
  type ReportPreset,
  type ReportRange,
  type ReportWindowQuery,
} from '@svc/contracts';

// The report's calendar is the shared Asia/Shanghai one (contracts shanghai-time.ts).
export { DAY_MS, SHANGHAI_OFFSET_MS, shanghaiDate, shanghaiMonth } from '@svc/contracts';
export const MINUTE_MS = 60 * 1000;
export const HOUR_MS = 60 * MINUTE_MS;

/** 00:00 Shanghai of the day holding `ms`. */
export const startOfDay = startOfShanghaiDay;

/** An instant as ISO 8601 with the offset +08:00, e.g. 2024-03-06T00:00:00.000+08:00. */
export const formatShanghai = (ms: number): string => shanghaiIso(ms);

/** Hour of day (0–23) in Shanghai. */
export const shanghaiHour = (ms: number): number => shanghaiParts(ms).hour;

/** Weekday in Shanghai, 0 = Monday … 6 = Sunday. */
export const shanghaiWeekday = shanghaiDaysSinceMonday;

/** The start of the bucket holding `ms`. */
export function bucketStart(ms: number, granularity: ReportGranularity): number {
  switch (granularity) {
    case 'halfHour':
      return Math.floor(ms / (30 * MINUTE_MS)) * 30 * MINUTE_MS;
    case 'hour':
      return Math.floor(ms / HOUR_MS) * HOUR_MS;
    case 'day':
      return startOfDay(ms);
    case 'week':
      return startOfDay(ms) - shanghaiWeekday(ms) * DAY_MS;
    case 'month':
      return startOfShanghaiMonth(ms);
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(start: number, granularity: ReportGranularity): number {
  switch (granularity) {
    case 'halfHour':
      return start + 30 * MINUTE_MS;
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + 7 * DAY_MS;
    case 'month':
      return startOfShanghaiMonth(start, 1);
  }
}

/** Starts of every bucket from the one holding `from` to the one holding the window's last instant. */
export function bucketStarts(from: number, to: number, granularity: ReportGranularity): number[] {
  const starts: number[] = [];
  for (let start = bucketStart(from, granularity); start < to; start = nextBucket(start, granularity)) {
    starts.push(start);
  }
  return starts;
}

const REQUESTABLE = new Set<string>(['hour', 'day', 'week', 'month']);

/**
 * The span rule: under one day → halfHour; exactly one day → hour; longer → the request, where halfHour becomes
 * hour and a missing or unknown value falls back to hour.
 */
export function effectiveGranularity(spanMs: number, requested: string | undefined): ReportGranularity {
  if (spanMs < DAY_MS) return 'halfHour';
  if (spanMs === DAY_MS) return 'hour';
  return requested !== undefined && REQUESTABLE.has(requested) ? (requested as ReportGranularity) : 'hour';
}

/** A resolved report window: [from, to) and the previous period [previousFrom, from), epoch ms. */
export interface ReportWindow {
  preset: ReportPreset;
  from: number;
  to: number;
  previousFrom: number;
  mediaType: ReportWindowQuery['mediaType'];
  userId: string | undefined;
}

/** The window of a preset (or custom from/to) at `now`, in Shanghai days. */
export function resolveWindow(query: ReportWindowQuery, now: number): ReportWindow {
  const today = startOfDay(now);
  let from: number;
  let to = now;
  switch (query.preset) {
    case 'lastNight':
      from = today - 3 * HOUR_MS;
      to = today;
      break;
    case 'today':
      from = today;
      break;
    case 'yesterday':
      from = today - DAY_MS;
      to = today;
      break;
    case 'last24h':
      from = now - DAY_MS;
      break;
    case 'last7d':
      from = now - 7 * DAY_MS;
      break;
    case 'last30d':
      from = now - 30 * DAY_MS;
      break;
    case 'last90d':
      from = now - 90 * DAY_MS;
      break;
    case 'custom':
      // The query schema has checked that both are present, ordered and not too far apart.
      from = Date.parse(query.from!);
      to = Date.parse(query.to!);
      break;
  }
  return {
    preset: query.preset,
    from,
    to,
    previousFrom: from - (to - from),
    mediaType: query.mediaType,
    userId: query.userId,
  };
}

/** The window as answers carry it. */
export function rangeOf(window: ReportWindow): ReportRange {
  return {
    preset: window.preset,
    from: formatShanghai(window.from),
    to: formatShanghai(window.to),
    previousFrom: formatShanghai(window.previousFrom),
    previousTo: formatShanghai(window.from),
    spanMs: window.to - window.from,
    timeZone: REPORT_TIME_ZONE,
    mediaType: window.mediaType ?? null,
    userId: window.userId ?? null,
  };
}
