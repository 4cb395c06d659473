/*
 * The report counts in Asia/Shanghai time whatever the browser's own zone is. Shanghai has kept UTC+8
 * without daylight saving since 1991, so a fixed offset is exact and needs no time-zone database.
 */
export const SHANGHAI_OFFSET_MS = 8 * 3600 * 1000;
export const DAY_MS = 24 * 3600 * 1000;

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

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

export function shanghaiParts(date: Date): ShanghaiParts {
  const shifted = new Date(date.getTime() + SHANGHAI_OFFSET_MS);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
    weekday: shifted.getUTCDay(),
  };
}

/** YYYY-MM-DD of the Shanghai calendar day the instant falls on. */
export function shanghaiDate(date: Date): string {
  const p = shanghaiParts(date);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** ISO 8601 with the +08:00 offset, to the second: 2024-03-06T20:15:30+08:00. */
export function shanghaiIso(date: Date): string {
  const p = shanghaiParts(date);
  return `${shanghaiDate(date)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}+08:00`;
}

/** The value of an <input type="datetime-local"> showing the instant in Shanghai time (YYYY-MM-DDTHH:mm). */
export function toShanghaiInput(date: Date): string {
  const p = shanghaiParts(date);
  return `${shanghaiDate(date)}T${pad(p.hour)}:${pad(p.minute)}`;
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
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  // Reject 2024-02-31 and 25:00 rather than rolling them over.
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute
  ) {
    return undefined;
  }
  return new Date(utc - SHANGHAI_OFFSET_MS);
}

/** 00:00 Shanghai time of the day the instant falls on. */
export function startOfShanghaiDay(date: Date): Date {
  const shifted = date.getTime() + SHANGHAI_OFFSET_MS;
  return new Date(shifted - (((shifted % DAY_MS) + DAY_MS) % DAY_MS) - SHANGHAI_OFFSET_MS);
}
