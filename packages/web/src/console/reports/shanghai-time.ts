import {
  fromShanghaiWallClock,
  shanghaiDate as shanghaiDateOf,
  shanghaiIso as shanghaiIsoOf,
  shanghaiMinute,
  shanghaiParts as shanghaiPartsOf,
  startOfShanghaiDay as startOfShanghaiDayOf,
  type ShanghaiParts,
} from '@svc/contracts';

/*
 * The report counts in Asia/Shanghai time whatever the browser's own zone is: the shared calendar of
 * `@svc/contracts` (shanghai-time.ts), taking and giving the Dates of the report page.
 */
export { DAY_MS, SHANGHAI_OFFSET_MS, type ShanghaiParts } from '@svc/contracts';

export function shanghaiParts(date: Date): ShanghaiParts {
  return shanghaiPartsOf(date.getTime());
}

/** YYYY-MM-DD of the Shanghai calendar day the instant falls on. */
export function shanghaiDate(date: Date): string {
  return shanghaiDateOf(date.getTime());
}

/** ISO 8601 with the +08:00 offset, to the second: 2024-03-06T20:15:30+08:00. */
export function shanghaiIso(date: Date): string {
  return shanghaiIsoOf(date.getTime(), 'second');
}

/** The value of an <input type="datetime-local"> showing the instant in Shanghai time (YYYY-MM-DDTHH:mm). */
export function toShanghaiInput(date: Date): string {
  return shanghaiMinute(date.getTime());
}

/** Reads YYYY-MM-DDTHH:mm[:ss] as Shanghai wall-clock time; undefined when it is not such a value. */
export function fromShanghaiInput(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = fromShanghaiWallClock(year, month, day, hour, minute, second);
  const check = shanghaiPartsOf(at);
  // Reject 2024-02-31 and 25:00 rather than rolling them over.
  if (
    check.year !== year ||
    check.month !== month ||
    check.day !== day ||
    check.hour !== hour ||
    check.minute !== minute
  ) {
    return undefined;
  }
  return new Date(at);
}

/** 00:00 Shanghai time of the day the instant falls on. */
export function startOfShanghaiDay(date: Date): Date {
  return new Date(startOfShanghaiDayOf(date.getTime()));
}
