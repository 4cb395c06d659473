import { useMemo, useState } from 'react';
import { SegmentedControl, Text } from '@mantine/core';
import type { ReportTimelineResponse } from '@svc/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { timelineOption, type TimelineMetric } from './chart-options.js';
import { ChartCard } from './chart-card.js';
import { useChartPalette } from './chart-palette.js';
import { EChart } from './echart.js';

const METRICS: TimelineMetric[] = ['plays', 'watch', 'traffic'];

function TimelineChart({ data, metric }: { data: ReportTimelineResponse; metric: TimelineMetric }) {
  const { t } = useTranslation('reports');
  const palette = useChartPalette();
  const option = useMemo(
    () =>
      timelineOption(
        data.buckets,
        data.granularity,
        metric,
        {
          activeUsers: t('timeline.activeUsers'),
          playCount: t('timeline.playCount'),
          watchHours: t('timeline.watchHours'),
          traffic: t('timeline.trafficSeries'),
        },
        palette,
      ),
    [data, metric, t, palette],
  );
  const empty = data.buckets.every((bucket) => bucket.playCount === 0 && bucket.watchMs === 0);
  return (
    <>
      {empty && (
        <Text size="sm" c="dimmed">
          {t('timeline.empty')}
        </Text>
      )}
      <EChart
        option={option}
        testId="timeline-chart"
        label={t('timeline.chartLabel', { granularity: t(`granularities.${data.granularity}`) })}
      />
    </>
  );
}

/** Active users, plays, watch time or traffic per bucket of the effective granularity. */
export function TimelineCard({ query }: { query: UseQueryResult<ReportTimelineResponse, unknown> }) {
  const { t } = useTranslation('reports');
  const [metric, setMetric] = useState<TimelineMetric>('plays');
  return (
    <ChartCard
      title={t('timeline.title')}
      query={query}
      controls={
        <SegmentedControl
          size="xs"
          aria-label={t('timeline.metric')}
          value={metric}
          onChange={setMetric}
          data={METRICS.map((value) => ({ value, label: t(`timeline.${value}`) }))}
          data-testid="timeline-metric"
        />
      }
    >
      {(data) => <TimelineChart data={data} metric={metric} />}
    </ChartCard>
  );
}
