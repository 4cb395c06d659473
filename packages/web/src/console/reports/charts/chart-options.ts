import type { ReportGranularity, ReportTimelineBucket } from '@svc/contracts';
import { bucketLabel, msToHours } from '../report-format.js';
import type { ChartOption } from './echarts-setup.js';

/*
 * ECharts options of the report's charts, built from the answers as plain data (no ECharts import at
 * run time, so they are tested without a canvas). Texts come in translated; colours from the Mantine
 * palette of the current scheme.
 */

export interface ChartPalette {
  /** Series colours in order. */
  series: [string, string, string];
  /** Heatmap scale from empty to busiest. */
  heat: [string, string];
}

export type TimelineMetric = 'plays' | 'watch' | 'traffic';

export interface TimelineTexts {
  activeUsers: string;
  playCount: string;
  watchHours: string;
  traffic: string;
}

const grid = { left: 8, right: 16, top: 40, bottom: 8, containLabel: true };
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** The binary unit that keeps the largest value readable, with its divisor. */
export function byteScale(max: number): { unit: string; divisor: number } {
  let unit = 0;
  while (max >= 1024 ** (unit + 1) && unit < BYTE_UNITS.length - 1) unit += 1;
  return { unit: BYTE_UNITS[unit] ?? 'B', divisor: 1024 ** unit };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function timelineOption(
  buckets: ReportTimelineBucket[],
  granularity: ReportGranularity,
  metric: TimelineMetric,
  texts: TimelineTexts,
  palette: ChartPalette,
): ChartOption {
  const categories = buckets.map((bucket) => bucketLabel(bucket.at, granularity));
  const base = {
    grid,
    tooltip: { trigger: 'axis' as const },
    legend: { top: 0 },
    xAxis: { type: 'category' as const, data: categories },
  };
  if (metric === 'plays') {
    return {
      ...base,
      color: [palette.series[0], palette.series[1]],
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        { name: texts.playCount, type: 'bar', data: buckets.map((bucket) => bucket.playCount) },
        { name: texts.activeUsers, type: 'line', data: buckets.map((bucket) => bucket.activeUsers) },
      ],
    };
  }
  if (metric === 'watch') {
    return {
      ...base,
      color: [palette.series[1]],
      yAxis: { type: 'value' },
      series: [
        { name: texts.watchHours, type: 'bar', data: buckets.map((bucket) => msToHours(bucket.watchMs)) },
      ],
    };
  }
  const { unit, divisor } = byteScale(Math.max(0, ...buckets.map((bucket) => bucket.bytes)));
  return {
    ...base,
    color: [palette.series[2]],
    yAxis: { type: 'value', name: unit },
    series: [
      {
        name: `${texts.traffic} (${unit})`,
        type: 'bar',
        data: buckets.map((bucket) => round2(bucket.bytes / divisor)),
      },
    ],
  };
}

export function concurrencyOption(
  buckets: { at: string; peak: number }[],
  granularity: ReportGranularity,
  seriesName: string,
  palette: ChartPalette,
): ChartOption {
  return {
    grid,
    color: [palette.series[0]],
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    xAxis: { type: 'category', data: buckets.map((bucket) => bucketLabel(bucket.at, granularity)) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      {
        name: seriesName,
        type: 'line',
        step: 'end',
        areaStyle: { opacity: 0.2 },
        data: buckets.map((bucket) => bucket.peak),
      },
    ],
  };
}

/**
 * Days across (MM-DD), hours of the day down (0 at the top), one cell per day and hour; `values[d][h]`
 * belongs to dates[d]. `scale` turns a raw value into the shown one (watch time in hours).
 */
export function heatmapOption(
  dates: string[],
  values: number[][],
  seriesName: string,
  palette: ChartPalette,
  scale: (value: number) => number = (value) => value,
): ChartOption {
  const data: [number, number, number][] = [];
  let max = 0;
  dates.forEach((_, day) => {
    for (let hour = 0; hour < 24; hour += 1) {
      const value = scale(values[day]?.[hour] ?? 0);
      max = Math.max(max, value);
      data.push([day, hour, value]);
    }
  });
  return {
    grid: { left: 8, right: 16, top: 8, bottom: 56, containLabel: true },
    tooltip: { position: 'top' },
    xAxis: { type: 'category', data: dates.map((date) => date.slice(5)), splitArea: { show: true } },
    yAxis: {
      type: 'category',
      inverse: true,
      data: Array.from({ length: 24 }, (_, hour) => `${String(hour).padStart(2, '0')}:00`),
      splitArea: { show: true },
    },
    visualMap: {
      min: 0,
      max: max > 0 ? max : 1,
      calculable: true,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      itemHeight: 120,
      inRange: { color: palette.heat },
    },
    series: [{ name: seriesName, type: 'heatmap', data, emphasis: { itemStyle: { borderWidth: 1 } } }],
  };
}

/** Bars over named categories (hours of the day, weekdays, months). */
export function barOption(
  categories: string[],
  values: number[],
  seriesName: string,
  color: string,
  integer = false,
): ChartOption {
  return {
    grid,
    color: [color],
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    xAxis: { type: 'category', data: categories },
    yAxis: integer ? { type: 'value', minInterval: 1 } : { type: 'value' },
    series: [{ name: seriesName, type: 'bar', data: values }],
  };
}

/** Watch hours as bars and play count as a line on a second axis, per month. */
export function monthlyOption(
  months: { month: string; watchMs: number; playCount: number }[],
  texts: { watchHours: string; playCount: string },
  palette: ChartPalette,
): ChartOption {
  return {
    grid,
    color: [palette.series[1], palette.series[0]],
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    xAxis: { type: 'category', data: months.map((entry) => entry.month) },
    yAxis: [{ type: 'value' }, { type: 'value', minInterval: 1, splitLine: { show: false } }],
    series: [
      { name: texts.watchHours, type: 'bar', data: months.map((entry) => msToHours(entry.watchMs)) },
      { name: texts.playCount, type: 'line', yAxisIndex: 1, data: months.map((entry) => entry.playCount) },
    ],
  };
}

/** Shares of a whole as a ring (media types, platforms), values in hours of watch time. */
export function shareOption(items: { name: string; value: number }[], seriesName: string): ChartOption {
  return {
    tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
    legend: { type: 'scroll', bottom: 0 },
    series: [
      {
        name: seriesName,
        type: 'pie',
        radius: ['40%', '68%'],
        center: ['50%', '45%'],
        label: { formatter: '{b}\n{d}%' },
        data: items,
      },
    ],
  };
}
