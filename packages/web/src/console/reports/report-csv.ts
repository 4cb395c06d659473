import type {
  ReportGranularity,
  ReportOverviewResponse,
  ReportRange,
  ReportTimelineResponse,
} from '@svc/contracts';
import { csvText, type CsvValue } from './csv.js';
import { shanghaiDate } from './shanghai-time.js';

/*
 * The CSV export of the report, built in the browser from the overview and timeline answers. Layout (each
 * record ends with CRLF, see csv.ts; the file starts with the UTF-8 BOM):
 *
 *   <title>
 *   <from>,<range.from>               the window as the server resolved it (ISO 8601, +08:00)
 *   <to>,<range.to>
 *   <timeZone>,Asia/Shanghai
 *   <granularity>,<effective granularity of the timeline>
 *   <mediaType>,<media type or "all">
 *   (empty record)
 *   <metric>,<current>,<previous>,<change %>       the six cards; change % with two decimals, empty when
 *   <card>,…                                        the previous value is 0
 *   (empty record)
 *   <time>,<active users>,<play count>,<watch duration (ms)>,<bytes>   the complete timeline, one row per
 *   <bucket start>,…                                                   bucket, starts as the server gave them
 */

export const CARD_KEYS = [
  'activeUsers',
  'playCount',
  'watchMs',
  'bytes',
  'avgWatchMsPerUser',
  'peakConcurrency',
] as const;
export type CardKey = (typeof CARD_KEYS)[number];

/** The wording of the file (the interface language's; tests use the English one). */
export interface ReportCsvLabels {
  title: string;
  from: string;
  to: string;
  timeZone: string;
  granularity: string;
  mediaType: string;
  allMediaTypes: string;
  metric: string;
  current: string;
  previous: string;
  changePercent: string;
  time: string;
  cards: Record<CardKey, string>;
  timeline: { activeUsers: string; playCount: string; watchMs: string; bytes: string };
}

/** (current - previous) / previous as a percentage with two decimals; empty when there is no rate. */
export function changePercentText(rate: number | null): string {
  if (rate === null || !Number.isFinite(rate)) return '';
  const text = (rate * 100).toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

export function buildReportCsv(
  overview: ReportOverviewResponse,
  timeline: ReportTimelineResponse,
  labels: ReportCsvLabels,
): string {
  const { range } = overview;
  const records: CsvValue[][] = [
    [labels.title],
    [labels.from, range.from],
    [labels.to, range.to],
    [labels.timeZone, range.timeZone],
    [labels.granularity, timeline.granularity],
    [labels.mediaType, range.mediaType ?? labels.allMediaTypes],
    [],
    [labels.metric, labels.current, labels.previous, labels.changePercent],
    ...CARD_KEYS.map((key) => {
      const card = overview.cards[key];
      return [labels.cards[key], card.current, card.previous, changePercentText(card.changeRate)];
    }),
    [],
    [
      labels.time,
      labels.timeline.activeUsers,
      labels.timeline.playCount,
      labels.timeline.watchMs,
      labels.timeline.bytes,
    ],
    ...timeline.buckets.map((bucket) => [
      bucket.at,
      bucket.activeUsers,
      bucket.playCount,
      bucket.watchMs,
      bucket.bytes,
    ]),
  ];
  return csvText(records);
}

/**
 * playback-report-{from}-{to}-{granularity}.csv with the Shanghai calendar dates of the window: the day
 * it starts and the day of its last instant (the end is exclusive, so yesterday's report carries
 * yesterday's date twice).
 */
export function reportCsvFileName(range: Pick<ReportRange, 'from' | 'to'>, granularity: ReportGranularity) {
  const from = new Date(range.from);
  const lastInstant = new Date(Math.max(from.getTime(), new Date(range.to).getTime() - 1));
  return `playback-report-${shanghaiDate(from)}-${shanghaiDate(lastInstant)}-${granularity}.csv`;
}
