import { useMemo } from 'react';
import { SimpleGrid } from '@mantine/core';
import { endpoints, type ReportHeatmapResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { msToHours } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { heatmapOption } from './chart-options.js';
import { ChartCard } from './chart-card.js';
import { useChartPalette } from './chart-palette.js';
import { EChart } from './echart.js';

const HEIGHT = 420;

function Heatmap({ data, by }: { data: ReportHeatmapResponse; by: 'count' | 'duration' }) {
  const { t } = useTranslation('reports');
  const palette = useChartPalette();
  const option = useMemo(
    () =>
      by === 'count'
        ? heatmapOption(data.dates, data.playCount, t('heatmap.countSeries'), palette)
        : heatmapOption(data.dates, data.watchMs, t('heatmap.durationSeries'), palette, msToHours),
    [data, by, t, palette],
  );
  return (
    <EChart
      option={option}
      height={HEIGHT}
      testId={by === 'count' ? 'heatmap-count' : 'heatmap-duration'}
      label={t(by === 'count' ? 'heatmap.countLabel' : 'heatmap.durationLabel')}
    />
  );
}

/** Date × hour of day (Shanghai), once by plays and once by watch time, from one answer. */
export function HeatmapCards({ reportWindow }: { reportWindow: WindowQuery | undefined }) {
  const { t } = useTranslation('reports');
  const query = useEndpointQuery(
    endpoints.user.reportHeatmap,
    { query: reportWindow ?? {} },
    { enabled: reportWindow !== undefined, keepPrevious: true },
  );
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md" verticalSpacing={0}>
      <ChartCard title={t('heatmap.countTitle')} query={query} height={HEIGHT}>
        {(data) => <Heatmap data={data} by="count" />}
      </ChartCard>
      <ChartCard title={t('heatmap.durationTitle')} query={query} height={HEIGHT}>
        {(data) => <Heatmap data={data} by="duration" />}
      </ChartCard>
    </SimpleGrid>
  );
}
