import { describe, expect, it } from 'vitest';
import type { ReportTimelineBucket } from '@svc/contracts';
import {
  barOption,
  byteScale,
  concurrencyOption,
  heatmapOption,
  monthlyOption,
  shareOption,
  timelineOption,
  type ChartPalette,
} from './chart-options.js';

const palette: ChartPalette = { series: ['#111', '#222', '#333'], heat: ['#eee', '#000'] };
const texts = { activeUsers: 'Users', playCount: 'Plays', watchHours: 'Hours', traffic: 'Traffic' };
const buckets: ReportTimelineBucket[] = [
  { at: '2024-03-06T00:00:00+08:00', activeUsers: 2, playCount: 3, watchMs: 5_400_000, bytes: 3 * 1024 ** 3 },
  {
    at: '2024-03-07T00:00:00+08:00',
    activeUsers: 1,
    playCount: 1,
    watchMs: 1_800_000,
    bytes: 512 * 1024 ** 2,
  },
];

type Series = { name?: string; type?: string; data?: unknown[]; yAxisIndex?: number };
const seriesOf = (option: { series?: unknown }) => option.series as Series[];

describe('chart options', () => {
  it('plots plays and active users per bucket with Shanghai labels', () => {
    const option = timelineOption(buckets, 'day', 'plays', texts, palette);
    expect((option.xAxis as { data: string[] }).data).toEqual(['03-06', '03-07']);
    expect(seriesOf(option).map((series) => [series.name, series.type, series.data])).toEqual([
      ['Plays', 'bar', [3, 1]],
      ['Users', 'line', [2, 1]],
    ]);
  });

  it('plots watch time in hours and traffic in the unit of the largest bucket', () => {
    expect(seriesOf(timelineOption(buckets, 'day', 'watch', texts, palette))[0]?.data).toEqual([1.5, 0.5]);
    const traffic = timelineOption(buckets, 'hour', 'traffic', texts, palette);
    expect(seriesOf(traffic)[0]).toMatchObject({ name: 'Traffic (GiB)', data: [3, 0.5] });
    expect((traffic.xAxis as { data: string[] }).data[0]).toBe('03-06 00:00');
    expect(byteScale(0)).toEqual({ unit: 'B', divisor: 1 });
    expect(byteScale(1023)).toEqual({ unit: 'B', divisor: 1 });
    expect(byteScale(1024)).toEqual({ unit: 'KiB', divisor: 1024 });
    expect(byteScale(5 * 1024 ** 4)).toEqual({ unit: 'TiB', divisor: 1024 ** 4 });
  });

  it('draws the concurrency peak per bucket as steps', () => {
    const option = concurrencyOption(
      [
        { at: '2024-03-06T20:00:00+08:00', peak: 1 },
        { at: '2024-03-06T20:30:00+08:00', peak: 4 },
      ],
      'halfHour',
      'Peak',
      palette,
    );
    expect((option.xAxis as { data: string[] }).data).toEqual(['03-06 20:00', '03-06 20:30']);
    expect(seriesOf(option)[0]).toMatchObject({ type: 'line', data: [1, 4] });
  });

  it('puts every day and hour into the heatmap, scaled, with the busiest cell as the top of the scale', () => {
    const counts = [
      Array.from({ length: 24 }, (_, hour) => (hour === 21 ? 7 : 0)),
      Array(24).fill(1) as number[],
    ];
    const option = heatmapOption(['2024-02-29', '2024-03-01'], counts, 'Plays', palette);
    const data = seriesOf(option)[0]?.data as [number, number, number][];
    expect(data).toHaveLength(48);
    expect(data).toContainEqual([0, 21, 7]);
    expect(data).toContainEqual([1, 0, 1]);
    expect((option.xAxis as { data: string[] }).data).toEqual(['02-29', '03-01']);
    expect((option.yAxis as { data: string[] }).data[21]).toBe('21:00');
    expect(option.visualMap).toMatchObject({ min: 0, max: 7, inRange: { color: ['#eee', '#000'] } });

    const hours = heatmapOption(['2024-03-01'], [[3_600_000]], 'Hours', palette, (ms) => ms / 3_600_000);
    expect((seriesOf(hours)[0]?.data as number[][])[0]).toEqual([0, 0, 1]);
    // Missing hours count as 0 and an empty map still has a scale.
    expect(heatmapOption(['2024-03-01'], [], 'x', palette).visualMap).toMatchObject({ max: 1 });
  });

  it('builds the user analysis charts', () => {
    const monthly = monthlyOption(
      [{ month: '2024-03', watchMs: 7_200_000, playCount: 4 }],
      { watchHours: 'Hours', playCount: 'Plays' },
      palette,
    );
    expect(seriesOf(monthly).map((series) => [series.data, series.yAxisIndex])).toEqual([
      [[2], undefined],
      [[4], 1],
    ]);
    expect(seriesOf(barOption(['Mon'], [1.5], 'Hours', '#123'))[0]).toMatchObject({
      type: 'bar',
      data: [1.5],
    });
    expect(seriesOf(shareOption([{ name: 'Movies', value: 2 }], 'Hours'))[0]).toMatchObject({
      type: 'pie',
      data: [{ name: 'Movies', value: 2 }],
    });
  });
});
