import { useState } from 'react';
import { Anchor, Table, Text } from '@mantine/core';
import { endpoints, type ReportMediaRow, type ReportSort } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { formatBytes, formatNumber } from '../../../i18n/format.js';
import { QueryState } from '../../../shell/query-state.js';
import type { OpenDrill } from '../drilldown/drill.js';
import { formatWatchMs } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { useLanguage } from '../use-language.js';
import { SortControl } from './sort-control.js';
import { RANKING_LIMIT } from './top-users.js';

/** "Series · Episode" for episodes, else the item's name. */
export function mediaTitle(row: Pick<ReportMediaRow, 'mediaName' | 'seriesName'>, unnamed: string): string {
  const name = row.mediaName || unnamed;
  return row.seriesName ? `${row.seriesName} · ${name}` : name;
}

/** The 20 items with the most watch time, plays or traffic; a title opens its watchers. */
export function TopMedia({ reportWindow, onOpen }: { reportWindow: WindowQuery; onOpen: OpenDrill }) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  const [sort, setSort] = useState<ReportSort>('watchMs');
  const query = useEndpointQuery(
    endpoints.user.reportTopMedia,
    { query: { ...reportWindow, sort, limit: RANKING_LIMIT } },
    { keepPrevious: true },
  );
  return (
    <div data-testid="top-media">
      <SortControl value={sort} onChange={setSort} testId="top-media-sort" />
      <QueryState query={query} skeletonRows={8}>
        {(data) =>
          data.items.length === 0 ? (
            <Text c="dimmed">{t('rankings.empty')}</Text>
          ) : (
            <Table.ScrollContainer minWidth={820}>
              <Table striped highlightOnHover data-testid="top-media-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={48}>{t('rankings.rank')}</Table.Th>
                    <Table.Th>{t('rankings.media')}</Table.Th>
                    <Table.Th>{t('rankings.type')}</Table.Th>
                    <Table.Th ta="right">{t('rankings.users')}</Table.Th>
                    <Table.Th ta="right">{t('rankings.watch')}</Table.Th>
                    <Table.Th ta="right">{t('rankings.plays')}</Table.Th>
                    <Table.Th ta="right">{t('rankings.traffic')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((row, index) => {
                    const title = mediaTitle(row, t('rankings.unnamed'));
                    return (
                      <Table.Tr key={row.mediaId} data-testid="media-row" data-media-id={row.mediaId}>
                        <Table.Td>{index + 1}</Table.Td>
                        <Table.Td>
                          <Anchor
                            component="button"
                            type="button"
                            size="sm"
                            ta="left"
                            onClick={() => onOpen({ kind: 'media', mediaId: row.mediaId, name: title })}
                            aria-label={t('rankings.openMedia', { name: title })}
                            data-testid="open-media"
                          >
                            {title}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>{t(`mediaTypes.${row.mediaType}`)}</Table.Td>
                        <Table.Td ta="right">{formatNumber(row.users)}</Table.Td>
                        <Table.Td ta="right" data-value={row.watchMs}>
                          {formatWatchMs(row.watchMs, language)}
                        </Table.Td>
                        <Table.Td ta="right">{formatNumber(row.playCount)}</Table.Td>
                        <Table.Td ta="right">{formatBytes(row.bytes)}</Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </div>
  );
}
