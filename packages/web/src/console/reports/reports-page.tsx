import { useCallback, useMemo, useState } from 'react';
import { Alert, Button, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { REPORT_MAX_SPAN_DAYS } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { invalidateEndpoints } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { useSession } from '../../session/session.js';
import { PageHeader } from '../../shell/page-route.js';
import { ConcurrencyCard } from './charts/concurrency-card.js';
import { HeatmapCards } from './charts/heatmap-cards.js';
import { TimelineCard } from './charts/timeline-card.js';
import { DrilldownDrawer } from './drilldown/drilldown-drawer.js';
import type { Drill } from './drilldown/drill.js';
import { ExportCsvButton } from './export/export-csv-button.js';
import { ReportFiltersBar } from './filters/report-filters-bar.js';
import type { UserChoice } from './filters/user-filter-select.js';
import { OverviewCards } from './overview/overview-cards.js';
import { RankingsTabs } from './rankings/rankings-tabs.js';
import { shanghaiDateTime } from './report-format.js';
import { REPORT_QUERIES, useOverview, useTimeline } from './report-queries.js';
import { customInputsOf, DEFAULT_FILTERS, windowQuery, type ReportFilters } from './report-window.js';
import { reportsMessages } from './reports-messages.js';
import { RetentionCard } from './retention/retention-card.js';

registerMessages('reports', reportsMessages);

/**
 * The playback report: filters, the six cards against the previous period, timeline, concurrency,
 * heat maps, rankings with drill-downs in a drawer, the activity log's retention, and a CSV export.
 */
export default function ReportsPage() {
  const { t } = useTranslation('reports');
  const { app } = useSession();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<ReportFilters>(DEFAULT_FILTERS);
  const [user, setUser] = useState<UserChoice | null>(null);
  const [drills, setDrills] = useState<Drill[]>([]);

  const checked = useMemo(() => windowQuery(filters), [filters]);
  const reportWindow = checked.ok ? checked.query : undefined;
  const overview = useOverview(reportWindow);
  const timeline = useTimeline(reportWindow, filters.granularity);
  const range = overview.data?.range;

  const change = useCallback((patch: Partial<ReportFilters>) => {
    setFilters((current) => ({ ...current, ...patch }));
  }, []);
  const openDrill = useCallback((drill: Drill) => setDrills((stack) => [...stack, drill]), []);
  const refresh = () => void invalidateEndpoints(queryClient, app, REPORT_QUERIES);

  return (
    <div data-testid="report-page">
      <PageHeader
        title={t('common:nav.reports')}
        // The window's fields name the zone themselves.
        timeZoneNote={false}
        actions={
          <>
            <Button
              variant="default"
              leftSection={<IconRefresh size={16} />}
              onClick={refresh}
              data-testid="report-refresh"
            >
              {t('refresh')}
            </Button>
            <ExportCsvButton reportWindow={reportWindow} granularity={filters.granularity} />
          </>
        }
      />
      <ReportFiltersBar
        filters={filters}
        user={user}
        problem={checked.ok ? undefined : checked.problem}
        effectiveGranularity={timeline.data?.granularity}
        onChange={change}
        onUserChange={(choice) => {
          setUser(choice);
          change({ userId: choice?.id ?? null });
        }}
        onCustom={() =>
          setFilters((current) => ({
            ...current,
            preset: 'custom',
            ...(current.customFrom || !range ? {} : customInputsOf(range)),
          }))
        }
      />
      {reportWindow === undefined ? (
        <Alert color="yellow" mb="md" data-testid="window-invalid">
          {checked.ok ? null : t(`filters.problems.${checked.problem}`, { days: REPORT_MAX_SPAN_DAYS })}
        </Alert>
      ) : (
        <>
          {range && (
            <Text size="sm" c="dimmed" mb="sm" data-testid="report-range">
              {t('windowShown', { from: shanghaiDateTime(range.from), to: shanghaiDateTime(range.to) })}
              {' · '}
              {t('previousShown', {
                from: shanghaiDateTime(range.previousFrom),
                to: shanghaiDateTime(range.previousTo),
              })}
            </Text>
          )}
          <OverviewCards query={overview} />
          <TimelineCard query={timeline} />
          <ConcurrencyCard reportWindow={reportWindow} initialGranularity={filters.granularity} />
          <HeatmapCards reportWindow={reportWindow} />
          <RankingsTabs reportWindow={reportWindow} onOpen={openDrill} />
          <DrilldownDrawer
            stack={drills}
            reportWindow={reportWindow}
            onOpen={openDrill}
            onBack={() => setDrills((stack) => stack.slice(0, -1))}
            onClose={() => setDrills([])}
          />
        </>
      )}
      <RetentionCard />
    </div>
  );
}
