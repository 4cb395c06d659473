import { useState } from 'react';
import { Anchor, Badge, Group, Table, Text } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { QueryState } from '../../../shell/query-state.js';
import type { OpenDrill } from '../drilldown/drill.js';
import { shanghaiDateTime } from '../report-format.js';
import type { WindowQuery } from '../report-window.js';
import { FIRST_PAGE, Paging, type PageState } from './paging.js';

/** Accounts without playback in the window, paged (10, 20, 50 or 100 a page). */
export function InactiveUsers({ reportWindow, onOpen }: { reportWindow: WindowQuery; onOpen: OpenDrill }) {
  const { t } = useTranslation('reports');
  const [paging, setPaging] = useState<PageState>(FIRST_PAGE);
  const query = useEndpointQuery(
    endpoints.user.reportInactiveUsers,
    { query: { ...reportWindow, ...paging } },
    { keepPrevious: true },
  );
  return (
    <div data-testid="inactive-users">
      <QueryState query={query} skeletonRows={8}>
        {(data) => (
          <>
            {data.items.length === 0 ? (
              <Text c="dimmed">{t('rankings.noInactive')}</Text>
            ) : (
              <Table.ScrollContainer minWidth={680}>
                <Table striped highlightOnHover data-testid="inactive-users-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('rankings.user')}</Table.Th>
                      <Table.Th>{t('rankings.role')}</Table.Th>
                      <Table.Th>{t('rankings.createdAt')}</Table.Th>
                      <Table.Th>{t('rankings.lastPlayed')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.items.map((user) => (
                      <Table.Tr key={user.userId} data-testid="inactive-row" data-user-id={user.userId}>
                        <Table.Td>
                          <Group gap={6} wrap="nowrap">
                            <Anchor
                              component="button"
                              type="button"
                              size="sm"
                              onClick={() =>
                                onOpen({ kind: 'user', userId: user.userId, name: user.username })
                              }
                              aria-label={t('rankings.openUser', { name: user.username })}
                            >
                              {user.username}
                            </Anchor>
                            {user.displayName && user.displayName !== user.username && (
                              <Text size="xs" c="dimmed">
                                {user.displayName}
                              </Text>
                            )}
                            {user.disabled && (
                              <Badge size="xs" color="gray" variant="light">
                                {t('rankings.disabled')}
                              </Badge>
                            )}
                          </Group>
                        </Table.Td>
                        <Table.Td>{t(`rankings.roles.${user.role}`)}</Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>
                          {shanghaiDateTime(user.createdAt)}
                        </Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>
                          {user.lastPlayedAt
                            ? shanghaiDateTime(user.lastPlayedAt)
                            : t('rankings.neverPlayed')}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
            <Paging total={data.total} state={paging} onChange={setPaging} testId="inactive-users" />
          </>
        )}
      </QueryState>
    </div>
  );
}
