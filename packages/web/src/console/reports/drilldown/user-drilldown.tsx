import { useMemo, useState, type ReactNode } from 'react';
import { Alert, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import {
  REPORT_USER_RANGES,
  reportUserRangeSchema,
  endpoints,
  type ReportUserRange,
  type ReportUserResponse,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { formatBytes, formatNumber } from '../../../i18n/format.js';
import { QueryState } from '../../../shell/query-state.js';
import { barOption, monthlyOption, shareOption } from '../charts/chart-options.js';
import { useChartPalette } from '../charts/chart-palette.js';
import { EChart } from '../charts/echart.js';
import type { ChartOption } from '../charts/echarts-setup.js';
import { formatRatio, formatWatchMs, msToHours, shanghaiDateTime } from '../report-format.js';
import { useLanguage } from '../use-language.js';
import { RecentPlays } from './recent-plays.js';

const CHART_HEIGHT = 260;

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder p="sm" data-testid={testId}>
      <Text size="xs" c="dimmed" fw={700} tt="uppercase">
        {label}
      </Text>
      <Text fz="xl" fw={700} data-testid="value">
        {value}
      </Text>
    </Paper>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="sm" style={{ minWidth: 0 }}>
      <Title order={3} size="h5" mb="xs">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** The analysis charts: message keys `drill.<chart>` and `drill.<chart>Label`, test id `user-<kebab>`. */
type UserChart = 'monthly' | 'hourly' | 'weekday' | 'mediaTypes' | 'platforms';
const HALF_WIDTH_CHARTS: readonly UserChart[] = ['hourly', 'weekday', 'mediaTypes', 'platforms'];

function ChartSection({ chart, option }: { chart: UserChart; option: ChartOption }) {
  const { t } = useTranslation('reports');
  const testId = `user-${chart.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  return (
    <Section title={t(`drill.${chart}`)}>
      <EChart option={option} height={CHART_HEIGHT} label={t(`drill.${chart}Label`)} testId={testId} />
    </Section>
  );
}

function UserAnalysis({ data }: { data: ReportUserResponse }) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  const palette = useChartPalette();
  const { totals } = data;
  const charts = useMemo(() => {
    const watchHours = t('drill.watchHours');
    const playCount = t('drill.plays');
    return {
      monthly: monthlyOption(data.monthly, { watchHours, playCount }, palette),
      hourly: barOption(
        Array.from({ length: 24 }, (_, hour) => String(hour).padStart(2, '0')),
        data.hourlyPlayCount,
        playCount,
        palette.series[0],
        true,
      ),
      weekday: barOption(
        t('drill.weekdays', { returnObjects: true }) as string[],
        data.weekdayWatchMs.map(msToHours),
        watchHours,
        palette.series[1],
      ),
      mediaTypes: shareOption(
        data.mediaTypes.map((entry) => ({
          name: t(`mediaTypes.${entry.mediaType}`),
          value: msToHours(entry.watchMs),
        })),
        watchHours,
      ),
      platforms: shareOption(
        data.platforms.map((entry) => ({
          name: t(`platforms.${entry.platform}`),
          value: msToHours(entry.watchMs),
        })),
        watchHours,
      ),
    };
  }, [data, t, palette]);

  return (
    <Stack gap="md">
      {data.user.deleted && (
        <Alert color="gray" data-testid="user-deleted">
          {t('drill.deletedAccount')}
        </Alert>
      )}
      <Text size="xs" c="dimmed">
        {t('windowShown', { from: shanghaiDateTime(data.range.from), to: shanghaiDateTime(data.range.to) })}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
        <Stat
          label={t('drill.cumulativeWatch')}
          value={formatWatchMs(totals.watchMs, language)}
          testId="user-stat-watch"
        />
        <Stat label={t('drill.activeDays')} value={formatNumber(totals.activeDays)} testId="user-stat-days" />
        <Stat
          label={t('drill.avgCompletion')}
          value={formatRatio(totals.avgCompletionRate, language)}
          testId="user-stat-completion"
        />
        <Stat
          label={t('drill.siteShare')}
          value={formatRatio(totals.siteShare, language)}
          testId="user-stat-share"
        />
        <Stat label={t('drill.plays')} value={formatNumber(totals.playCount)} testId="user-stat-plays" />
        <Stat label={t('drill.traffic')} value={formatBytes(totals.bytes)} testId="user-stat-traffic" />
      </SimpleGrid>
      <ChartSection chart="monthly" option={charts.monthly} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {HALF_WIDTH_CHARTS.map((chart) => (
          <ChartSection key={chart} chart={chart} option={charts[chart]} />
        ))}
      </SimpleGrid>
      <Section title={t('drill.recentPlays')}>
        <RecentPlays plays={data.recentPlays} />
      </Section>
    </Stack>
  );
}

/** One user's playback over the last 30 days, 90 days, half a year or a year. */
export function UserDrilldown({ userId }: { userId: string }) {
  const { t } = useTranslation('reports');
  const [range, setRange] = useState<ReportUserRange>('30d');
  const query = useEndpointQuery(
    endpoints.user.reportUser,
    { params: { userId }, query: { range } },
    { keepPrevious: true },
  );
  return (
    <Stack gap="md" data-testid="user-drilldown">
      <SegmentedControl
        aria-label={t('drill.range')}
        value={range}
        onChange={(value) => {
          const parsed = reportUserRangeSchema.safeParse(value);
          if (parsed.success) setRange(parsed.data);
        }}
        data={REPORT_USER_RANGES.map((value) => ({ value, label: t(`drill.ranges.${value}`) }))}
        data-testid="user-range"
      />
      <QueryState query={query} skeletonRows={10}>
        {(data) => <UserAnalysis data={data} />}
      </QueryState>
    </Stack>
  );
}
