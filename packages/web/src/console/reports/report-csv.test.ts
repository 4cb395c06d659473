import { describe, expect, it } from 'vitest';
import type { ReportOverviewResponse, ReportTimelineResponse } from '@svc/contracts';
import { csvField, csvText } from './csv.js';
import { buildReportCsv, changePercentText, reportCsvFileName, type ReportCsvLabels } from './report-csv.js';
import { reportsMessages } from './reports-messages.js';

const range = {
  preset: 'custom' as const,
  from: '2024-02-28T00:00:00+08:00',
  to: '2024-03-02T00:00:00+08:00',
  previousFrom: '2024-02-25T00:00:00+08:00',
  previousTo: '2024-02-28T00:00:00+08:00',
  spanMs: 3 * 86_400_000,
  timeZone: 'Asia/Shanghai' as const,
  mediaType: 'movie' as const,
  userId: null,
};

const overview: ReportOverviewResponse = {
  range,
  cards: {
    activeUsers: { current: 3, previous: 2, changeRate: 0.5 },
    playCount: { current: 10, previous: 0, changeRate: null },
    watchMs: { current: 7_200_000, previous: 9_600_000, changeRate: -0.25 },
    bytes: { current: 12_345_678_901_234, previous: 12_345_678_901_234, changeRate: 0 },
    avgWatchMsPerUser: { current: 2_400_000, previous: 4_800_000, changeRate: -0.5 },
    peakConcurrency: { current: 2, previous: 3, changeRate: -1 / 3 },
  },
};

const timeline: ReportTimelineResponse = {
  range,
  granularity: 'day',
  buckets: [
    { at: '2024-02-28T00:00:00+08:00', activeUsers: 1, playCount: 4, watchMs: 3_600_000, bytes: 1024 },
    { at: '2024-02-29T00:00:00+08:00', activeUsers: 2, playCount: 6, watchMs: 3_600_000, bytes: 0 },
    { at: '2024-03-01T00:00:00+08:00', activeUsers: 0, playCount: 0, watchMs: 0, bytes: 0 },
  ],
};

const english: ReportCsvLabels = reportsMessages.en.csv;

describe('report CSV', () => {
  it('writes the BOM, the filters, the six cards and the whole timeline with CRLF line ends', () => {
    const text = buildReportCsv(overview, timeline, english);
    const expected =
      '\uFEFF' +
      [
        'Playback report',
        'From,2024-02-28T00:00:00+08:00',
        'To,2024-03-02T00:00:00+08:00',
        'Time zone,Asia/Shanghai',
        'Granularity,day',
        'Media type,movie',
        '',
        'Metric,Current,Previous,Change %',
        'Active users,3,2,50.00',
        'Play count,10,0,',
        'Total watch duration (ms),7200000,9600000,-25.00',
        'Total traffic (bytes),12345678901234,12345678901234,0.00',
        'Average watch per user (ms),2400000,4800000,-50.00',
        'Peak concurrency,2,3,-33.33',
        '',
        'Time,Active users,Play count,Watch duration (ms),Bytes',
        '2024-02-28T00:00:00+08:00,1,4,3600000,1024',
        '2024-02-29T00:00:00+08:00,2,6,3600000,0',
        '2024-03-01T00:00:00+08:00,0,0,0,0',
      ]
        .map((line) => `${line}\r\n`)
        .join('');
    expect(text).toBe(expected);
    // The bytes of the file: UTF-8 with the BOM EF BB BF first.
    const bytes = new TextEncoder().encode(text);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.at(-2)).toBe(0x0d);
    expect(bytes.at(-1)).toBe(0x0a);
  });

  it('names all media types when none is filtered and keeps Chinese labels as UTF-8', () => {
    const text = buildReportCsv(
      { ...overview, range: { ...range, mediaType: null } },
      timeline,
      reportsMessages.zh.csv,
    );
    const lines = text.slice(1).split('\r\n');
    expect(lines[5]).toBe('媒体类型,全部');
    expect(lines[8]).toBe('活跃用户,3,2,50.00');
    expect(new TextEncoder().encode('媒').length).toBe(3);
    expect(text.startsWith('\uFEFF播放报表\r\n')).toBe(true);
  });

  it('quotes fields holding commas, quotes, CR or LF and doubles inner quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(1e21)).toBe('1000000000000000000000');
    expect(csvField(0.5)).toBe('0.5');
    expect(csvText([['a,b', 'c"d'], [], ['e']])).toBe('\uFEFF"a,b","c""d"\r\n\r\ne\r\n');

    const labels: ReportCsvLabels = {
      ...english,
      title: 'Report, "weekly"\nfor ops',
      cards: { ...english.cards, activeUsers: 'Users, active' },
    };
    const text = buildReportCsv(overview, timeline, labels);
    expect(text.startsWith('\uFEFF"Report, ""weekly""\nfor ops"\r\nFrom,')).toBe(true);
    expect(text).toContain('\r\n"Users, active",3,2,50.00\r\n');
  });

  it('writes change rates as percentages with two decimals, empty without a previous value', () => {
    expect(changePercentText(0.5)).toBe('50.00');
    expect(changePercentText(-1 / 3)).toBe('-33.33');
    expect(changePercentText(0)).toBe('0.00');
    expect(changePercentText(-0.000001)).toBe('0.00');
    expect(changePercentText(12.3456)).toBe('1234.56');
    expect(changePercentText(null)).toBe('');
  });

  it('names the file after the Shanghai dates of the window and the effective granularity', () => {
    expect(reportCsvFileName(range, 'day')).toBe('playback-report-2024-02-28-2024-03-01-day.csv');
    // Yesterday (a whole day) carries its date twice.
    expect(
      reportCsvFileName({ from: '2024-03-05T00:00:00+08:00', to: '2024-03-06T00:00:00+08:00' }, 'hour'),
    ).toBe('playback-report-2024-03-05-2024-03-05-hour.csv');
    // Last night 21:00–00:00, written in UTC: still the Shanghai date.
    expect(reportCsvFileName({ from: '2024-03-05T13:00:00Z', to: '2024-03-05T16:00:00Z' }, 'halfHour')).toBe(
      'playback-report-2024-03-05-2024-03-05-halfHour.csv',
    );
    // A window ending mid-day (last 7 days at 07:30) ends on that day.
    expect(
      reportCsvFileName({ from: '2024-12-25T07:30:00+08:00', to: '2025-01-01T07:30:00+08:00' }, 'week'),
    ).toBe('playback-report-2024-12-25-2025-01-01-week.csv');
  });
});
