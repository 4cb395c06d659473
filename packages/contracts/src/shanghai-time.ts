/**
 * The one Asia/Shanghai calendar of the project: quota periods, report buckets and every time the apps show.
 * Shanghai has kept UTC+8 without daylight saving since 1991, so a fixed offset is exact, needs no time-zone
 * database and is plain arithmetic on epoch milliseconds.
 */
export const SHANGHAI_TIME_ZONE = 'Asia/Shanghai';
/** The zone's offset as people read it. */
export const SHANGHAI_OFFSET_LABEL = 'UTC+8';
export const SHANGHAI_OFFSET_MS = 8 * 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The wall clock of an instant in Shanghai: a Date whose UTC fields are Shanghai's. */
function wallClock(ms: number): Date {
  return new Date(ms + SHANGHAI_OFFSET_MS);
}

export interface ShanghaiParts {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

export function shanghaiParts(ms: number): ShanghaiParts {
  const clock = wallClock(ms);
  return {
    year: clock.getUTCFullYear(),
    month: clock.getUTCMonth() + 1,
    day: clock.getUTCDate(),
    hour: clock.getUTCHours(),
    minute: clock.getUTCMinutes(),
    second: clock.getUTCSeconds(),
    weekday: clock.getUTCDay(),
  };
}

/** The instant of a Shanghai wall-clock time (month 1–12); fields out of range roll over as in Date.UTC. */
export function fromShanghaiWallClock(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) - SHANGHAI_OFFSET_MS;
}

/** 00:00 Shanghai of the day holding `ms` (16:00 UTC of the day before). */
export function startOfShanghaiDay(ms: number): number {
  return Math.floor((ms + SHANGHAI_OFFSET_MS) / DAY_MS) * DAY_MS - SHANGHAI_OFFSET_MS;
}

/** Days since Monday of the Shanghai day holding `ms`: 0 = Monday … 6 = Sunday. */
export function shanghaiDaysSinceMonday(ms: number): number {
  return (wallClock(ms).getUTCDay() + 6) % 7;
}

/** Monday 00:00 Shanghai of the week holding `ms`. */
export function startOfShanghaiWeek(ms: number): number {
  return startOfShanghaiDay(ms) - shanghaiDaysSinceMonday(ms) * DAY_MS;
}

/** The 1st 00:00 Shanghai of the month holding `ms`, or of a month `offset` months later. */
export function startOfShanghaiMonth(ms: number, offset = 0): number {
  const { year, month } = shanghaiParts(ms);
  return fromShanghaiWallClock(year, month + offset, 1);
}

/** The Shanghai calendar day of an instant, 'YYYY-MM-DD'. */
export function shanghaiDate(ms: number): string {
  return wallClock(ms).toISOString().slice(0, 10);
}

/** The Shanghai calendar month of an instant, 'YYYY-MM'. */
export function shanghaiMonth(ms: number): string {
  return wallClock(ms).toISOString().slice(0, 7);
}

/**
 * An instant as ISO 8601 with the offset +08:00: to the millisecond (2024-03-06T00:00:00.000+08:00) or to
 * the second (2024-03-06T00:00:00+08:00).
 */
export function shanghaiIso(ms: number, precision: 'millisecond' | 'second' = 'millisecond'): string {
  const iso = wallClock(ms).toISOString();
  return `${precision === 'second' ? iso.slice(0, 19) : iso.slice(0, 23)}+08:00`;
}

/** 'YYYY-MM-DDTHH:mm' of an instant in Shanghai (the value of an <input type="datetime-local">). */
export function shanghaiMinute(ms: number): string {
  const p = shanghaiParts(ms);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}
