import { useState } from 'react';
import { Badge, Group, Stack, Text } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { QueryState } from '../../../shell/query-state.js';
import { shanghaiDateTime } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { FIRST_PAGE, Paging, type PageState } from '../rankings/paging.js';
import { mediaTitle } from '../rankings/top-media.js';
import { UserRowsTable } from '../rankings/user-rows-table.js';
import type { OpenDrill } from './drill.js';

/** The users who watched one item in the report's window, by watch time. */
export function MediaWatchers({
  mediaId,
  reportWindow,
  onOpen,
}: {
  mediaId: string;
  reportWindow: WindowQuery;
  onOpen: OpenDrill;
}) {
  const { t } = useTranslation('reports');
  const [paging, setPaging] = useState<PageState>(FIRST_PAGE);
  const query = useEndpointQuery(
    endpoints.user.reportMediaWatchers,
    { query: { ...reportWindow, mediaId, ...paging } },
    { keepPrevious: true },
  );
  return (
    <Stack gap="sm" data-testid="media-watchers">
      <QueryState query={query} skeletonRows={6}>
        {(data) => (
          <>
            {data.media ? (
              <Group gap="xs">
                <Text fw={600}>{mediaTitle(data.media, t('rankings.unnamed'))}</Text>
                <Badge variant="light">{t(`mediaTypes.${data.media.mediaType}`)}</Badge>
              </Group>
            ) : (
              <Text c="dimmed">{t('drill.mediaUnknown')}</Text>
            )}
            <Text size="xs" c="dimmed">
              {t('drill.windowNote', {
                from: shanghaiDateTime(data.range.from),
                to: shanghaiDateTime(data.range.to),
              })}
            </Text>
            {data.items.length > 0 && (
              <UserRowsTable rows={data.items} onOpen={onOpen} testId="media-watchers-table" />
            )}
            <Paging total={data.total} state={paging} onChange={setPaging} testId="media-watchers" />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
