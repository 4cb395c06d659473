import { SHANGHAI_OFFSET_LABEL, SHANGHAI_TIME_ZONE } from '@svc/contracts';
import { currentLanguage } from './i18n.js';

const locale = () => (currentLanguage() === 'zh' ? 'zh-CN' : 'en-GB');

/** Bytes in binary units (KiB … TiB), as storage tools show them. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${bytes < 0 ? '-' : ''}${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * The one zone both apps show every time in, whatever the browser's own (docs/web.md): the spec's
 * business calendar. Report windows and quota periods count in it, so a page never mixes two zones.
 */
export const DISPLAY_TIME_ZONE = SHANGHAI_TIME_ZONE;
/** Shanghai has kept UTC+8 without daylight saving since 1991. */
export const DISPLAY_TIME_ZONE_OFFSET = SHANGHAI_OFFSET_LABEL;

/**
 * An instant as date and time in DISPLAY_TIME_ZONE, to the second or (`minute`) to the minute, e.g.
 * "27 Nov 2026, 18:52:07" / "2026年11月27日 18:52:07". Pages name the zone in their header (TimeZoneNote).
 */
export function formatDateTime(
  value: string | number | Date | null | undefined,
  precision: 'second' | 'minute' = 'second',
): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return new Intl.DateTimeFormat(locale(), {
    timeZone: DISPLAY_TIME_ZONE,
    dateStyle: 'medium',
    timeStyle: precision === 'second' ? 'medium' : 'short',
  }).format(date);
}

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return new Intl.NumberFormat(locale()).format(value);
}

/** A duration in seconds as h:mm:ss or m:ss. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
