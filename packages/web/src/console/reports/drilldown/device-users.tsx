import { useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { endpoints, type ReportPlatform } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { QueryState } from '../../../shell/query-state.js';
import { shanghaiDateTime } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { FIRST_PAGE, Paging, type PageState } from '../rankings/paging.js';
import { UserRowsTable } from '../rankings/user-rows-table.js';
import type { OpenDrill } from './drill.js';

export type DeviceTarget = { client: string; deviceName?: string } | { platform: ReportPlatform };

/** The users of a client, of one device of a client, or of a platform in the report's window. */
export function DeviceUsers({
  target,
  reportWindow,
  onOpen,
}: {
  target: DeviceTarget;
  reportWindow: WindowQuery;
  onOpen: OpenDrill;
}) {
  const { t } = useTranslation('reports');
  const [paging, setPaging] = useState<PageState>(FIRST_PAGE);
  const query = useEndpointQuery(
    endpoints.user.reportDeviceUsers,
    // A client or device without a name is the empty string, which must be sent: left out, the server
    // would answer for another group.
    { query: { ...reportWindow, ...target, ...paging }, keepEmptyQuery: true },
    { keepPrevious: true },
  );
  return (
    <Stack gap="sm" data-testid="device-users">
      <QueryState query={query} skeletonRows={6}>
        {(data) => (
          <>
            <Text size="xs" c="dimmed">
              {t('drill.windowNote', {
                from: shanghaiDateTime(data.range.from),
                to: shanghaiDateTime(data.range.to),
              })}
            </Text>
            {data.items.length === 0 ? (
              <Text c="dimmed">{t('rankings.empty')}</Text>
            ) : (
              <UserRowsTable rows={data.items} onOpen={onOpen} testId="device-users-table" />
            )}
            <Paging total={data.total} state={paging} onChange={setPaging} testId="device-users" />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
