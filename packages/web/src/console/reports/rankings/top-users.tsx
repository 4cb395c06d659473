import { useState } from 'react';
import { Text } from '@mantine/core';
import { endpoints, type ReportSort } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { QueryState } from '../../../shell/query-state.js';
import type { OpenDrill } from '../drilldown/drill.js';
import type { WindowQuery } from '../report-window.js';
import { SortControl } from './sort-control.js';
import { UserRowsTable } from './user-rows-table.js';

export const RANKING_LIMIT = 20;

/** The 20 users with the most watch time, plays or traffic in the window. */
export function TopUsers({ reportWindow, onOpen }: { reportWindow: WindowQuery; onOpen: OpenDrill }) {
  const { t } = useTranslation('reports');
  const [sort, setSort] = useState<ReportSort>('watchMs');
  const query = useEndpointQuery(
    endpoints.user.reportTopUsers,
    { query: { ...reportWindow, sort, limit: RANKING_LIMIT } },
    { keepPrevious: true },
  );
  return (
    <div data-testid="top-users">
      <SortControl value={sort} onChange={setSort} testId="top-users-sort" />
      <QueryState query={query} skeletonRows={8}>
        {(data) =>
          data.items.length === 0 ? (
            <Text c="dimmed">{t('rankings.empty')}</Text>
          ) : (
            <UserRowsTable rows={data.items} rankFrom={1} onOpen={onOpen} testId="top-users-table" />
          )
        }
      </QueryState>
    </div>
  );
}
