/** Quota periods follow the Asia/Shanghai calendar (UTC+8 all year, docs/auth.md): show them in it. */
export const QUOTA_TIME_ZONE = 'Asia/Shanghai';

/**
 * A period boundary as a date and time in UTC+8, whatever the browser's own zone: a month that starts on
 * the 1st at 00:00 in Shanghai reads so, not as "31 Oct, 16:00" in London.
 */
export function formatPeriodBoundary(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  return new Intl.DateTimeFormat(locale, {
    timeZone: QUOTA_TIME_ZONE,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(date);
}
