import { useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { reportDeviceUsersResponseSchema, type ReportPlatform } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useApiQuery } from '../../../api/hooks.js';
import { QueryState } from '../../../shell/query-state.js';
import { shanghaiDateTime } from '../report-format.js';
import { REPORTS_PATH } from '../report-queries.js';
import type { WindowQuery } from '../report-window.js';
import { FIRST_PAGE, Paging, type PageState } from '../rankings/paging.js';
import { UserRowsTable } from '../rankings/user-rows-table.js';
import type { OpenDrill } from './drill.js';

export type DeviceTarget = { client: string; deviceName?: string } | { platform: ReportPlatform };

/**
 * The path with its query written out here: a client or device without a name is the empty string, which
 * the shared query builder would leave out (and the server would then answer for another group).
 */
function deviceUsersPath(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) search.set(key, String(value));
  }
  return `${REPORTS_PATH}/device-users?${search.toString()}`;
}

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
  const query = useApiQuery(deviceUsersPath({ ...reportWindow, ...target, ...paging }), {
    schema: reportDeviceUsersResponseSchema,
    keepPrevious: true,
  });
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
