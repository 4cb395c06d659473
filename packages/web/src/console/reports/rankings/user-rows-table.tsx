import { Anchor, Badge, Group, Table, Text } from '@mantine/core';
import type { ReportUserRow } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatNumber } from '../../../i18n/format.js';
import type { OpenDrill } from '../drilldown/drill.js';
import { formatWatchMs, shanghaiDateTime } from '../report-format.js';
import { useLanguage } from '../use-language.js';

/** Users with their figures (top users, watchers of an item, users of a device); names open the user's analysis. */
export function UserRowsTable({
  rows,
  rankFrom,
  onOpen,
  testId,
}: {
  rows: ReportUserRow[];
  /** Rank of the first row, or undefined to leave the rank column out. */
  rankFrom?: number;
  onOpen: OpenDrill;
  testId: string;
}) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped highlightOnHover data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {rankFrom !== undefined && <Table.Th w={48}>{t('rankings.rank')}</Table.Th>}
            <Table.Th>{t('rankings.user')}</Table.Th>
            <Table.Th ta="right">{t('rankings.watch')}</Table.Th>
            <Table.Th ta="right">{t('rankings.plays')}</Table.Th>
            <Table.Th ta="right">{t('rankings.traffic')}</Table.Th>
            <Table.Th ta="right">{t('rankings.sessions')}</Table.Th>
            <Table.Th>{t('rankings.lastPlayed')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, index) => (
            <Table.Tr key={row.userId} data-testid="user-row" data-user-id={row.userId}>
              {rankFrom !== undefined && <Table.Td>{rankFrom + index}</Table.Td>}
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Anchor
                    component="button"
                    type="button"
                    size="sm"
                    onClick={() => onOpen({ kind: 'user', userId: row.userId, name: row.username })}
                    aria-label={t('rankings.openUser', { name: row.username })}
                    data-testid="open-user"
                  >
                    {row.username}
                  </Anchor>
                  {row.deleted && (
                    <Badge size="xs" color="gray" variant="light">
                      {t('rankings.deleted')}
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td ta="right" data-value={row.watchMs}>
                {formatWatchMs(row.watchMs, language)}
              </Table.Td>
              <Table.Td ta="right">{formatNumber(row.playCount)}</Table.Td>
              <Table.Td ta="right">{formatBytes(row.bytes)}</Table.Td>
              <Table.Td ta="right">{formatNumber(row.sessions)}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Text size="sm">{shanghaiDateTime(row.lastPlayedAt)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
