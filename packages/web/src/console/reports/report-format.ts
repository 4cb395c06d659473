import type { ReportGranularity } from '@svc/contracts';
import { shanghaiParts } from './shanghai-time.js';

export type Language = 'en' | 'zh';

const locale = (language: Language) => (language === 'zh' ? 'zh-CN' : 'en-GB');
const pad = (value: number) => String(value).padStart(2, '0');

/** Watch time for people: "45 s", "12 min", "3 h 5 min", "1,204 h" (and the Chinese units). */
export function formatWatchMs(ms: number, language: Language): string {
  const units =
    language === 'zh' ? { s: ' 秒', min: ' 分钟', h: ' 小时' } : { s: ' s', min: ' min', h: ' h' };
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}${units.s}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}${units.min}`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const hoursText = new Intl.NumberFormat(locale(language)).format(hours);
  if (hours >= 100 || rest === 0) return `${hoursText}${units.h}`;
  return `${hoursText}${units.h} ${rest}${units.min}`;
}

/** Hours with two decimals, the unit of watch-time chart axes. */
export function msToHours(ms: number): number {
  return Math.round((ms / 3_600_000) * 100) / 100;
}

/** A ratio as a percentage: 0.256 → "25.6%"; "—" without a value. */
export function formatRatio(ratio: number | null, language: Language, digits = 1): string {
  if (ratio === null || !Number.isFinite(ratio)) return '—';
  return new Intl.NumberFormat(locale(language), {
    style: 'percent',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(ratio);
}

export type ChangeDirection = 'up' | 'down' | 'flat' | 'none';

/** How a card's value moved against the previous period; `none` when there is no rate (previous 0). */
export function changeDirection(rate: number | null): ChangeDirection {
  if (rate === null || !Number.isFinite(rate)) return 'none';
  if (rate > 0) return 'up';
  if (rate < 0) return 'down';
  return 'flat';
}

/** The change rate of a card: "+25.0%", "-3.2%", "0.0%", "—" when the previous value was 0. */
export function formatChangeRate(rate: number | null, language: Language): string {
  if (rate === null || changeDirection(rate) === 'none') return '—';
  const text = formatRatio(Math.abs(rate), language);
  return rate > 0 ? `+${text}` : rate < 0 ? `-${text}` : text;
}

/** A bucket start (ISO with offset) as an axis label in Shanghai time, as short as its granularity allows. */
export function bucketLabel(at: string, granularity: ReportGranularity): string {
  const p = shanghaiParts(new Date(at));
  switch (granularity) {
    case 'halfHour':
    case 'hour':
      return `${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}`;
    case 'day':
    case 'week':
      return `${pad(p.month)}-${pad(p.day)}`;
    case 'month':
      return `${p.year}-${pad(p.month)}`;
  }
}

/** A bucket start in full for tooltips: "2024-03-06 20:30", "2024-03-06", "2024-03". */
export function bucketTitle(at: string, granularity: ReportGranularity): string {
  const p = shanghaiParts(new Date(at));
  const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  if (granularity === 'halfHour' || granularity === 'hour') return `${date} ${pad(p.hour)}:${pad(p.minute)}`;
  if (granularity === 'month') return `${p.year}-${pad(p.month)}`;
  return date;
}

/** A time point of an answer shown in Shanghai time: "2024-03-06 20:15". */
export function shanghaiDateTime(at: string): string {
  const p = shanghaiParts(new Date(at));
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}`;
}
