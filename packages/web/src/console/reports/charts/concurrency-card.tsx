import { useMemo, useState } from 'react';
import { Badge, Select } from '@mantine/core';
import {
  REPORT_GRANULARITIES,
  reportGranularitySchema,
  type ReportConcurrentResponse,
  type ReportGranularity,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../../i18n/format.js';
import { useConcurrent } from '../report-queries.js';
import type { WindowQuery } from '../report-window.js';
import { concurrencyOption } from './chart-options.js';
import { ChartCard } from './chart-card.js';
import { useChartPalette } from './chart-palette.js';
import { EChart } from './echart.js';

function ConcurrencyChart({ data }: { data: ReportConcurrentResponse }) {
  const { t } = useTranslation('reports');
  const palette = useChartPalette();
  const option = useMemo(
    () => concurrencyOption(data.buckets, data.granularity, t('concurrency.series'), palette),
    [data, t, palette],
  );
  return (
    <EChart
      option={option}
      testId="concurrency-chart"
      label={t('concurrency.chartLabel', { granularity: t(`granularities.${data.granularity}`) })}
    />
  );
}

/** Peak concurrent sessions per bucket, with its own granularity choice. */
export function ConcurrencyCard({
  reportWindow,
  initialGranularity,
}: {
  reportWindow: WindowQuery | undefined;
  initialGranularity: ReportGranularity;
}) {
  const { t } = useTranslation('reports');
  const [granularity, setGranularity] = useState<ReportGranularity>(initialGranularity);
  const query = useConcurrent(reportWindow, granularity);
  const effective = query.data?.granularity;
  return (
    <ChartCard
      title={t('concurrency.title')}
      query={query}
      controls={
        <>
          {query.data && (
            <Badge variant="light" tt="none" data-testid="concurrency-peak" data-value={query.data.peak}>
              {t('concurrency.peak', { count: query.data.peak, formatted: formatNumber(query.data.peak) })}
            </Badge>
          )}
          {effective && effective !== granularity && (
            <Badge variant="outline" tt="none" data-testid="concurrency-effective">
              {t('filters.effective', { granularity: t(`granularities.${effective}`) })}
            </Badge>
          )}
          <Select
            size="xs"
            aria-label={t('filters.granularity')}
            data={REPORT_GRANULARITIES.map((value) => ({ value, label: t(`granularities.${value}`) }))}
            value={granularity}
            onChange={(value) => {
              const parsed = reportGranularitySchema.safeParse(value);
              if (parsed.success) setGranularity(parsed.data);
            }}
            allowDeselect={false}
            data-testid="concurrency-granularity"
            w={120}
          />
        </>
      }
    >
      {(data) => <ConcurrencyChart data={data} />}
    </ChartCard>
  );
}
