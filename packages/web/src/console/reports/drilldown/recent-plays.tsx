import { Group, Progress, Table, Text } from '@mantine/core';
import type { ReportUserPlay } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../../i18n/format.js';
import { formatRatio, formatWatchMs, shanghaiDateTime } from '../report-format.js';
import { mediaTitle } from '../rankings/top-media.js';
import { useLanguage } from '../use-language.js';
import { deviceDisplayName } from './drill.js';

/** The user's latest 50 plays, each with a progress bar of how far it got. */
export function RecentPlays({ plays }: { plays: ReportUserPlay[] }) {
  const { t } = useTranslation('reports');
  const language = useLanguage();
  if (plays.length === 0) return <Text c="dimmed">{t('drill.noPlays')}</Text>;
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped data-testid="recent-plays">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('drill.started')}</Table.Th>
            <Table.Th>{t('rankings.media')}</Table.Th>
            <Table.Th>{t('rankings.device')}</Table.Th>
            <Table.Th>{t('drill.method')}</Table.Th>
            <Table.Th ta="right">{t('rankings.watch')}</Table.Th>
            <Table.Th ta="right">{t('rankings.traffic')}</Table.Th>
            <Table.Th w={180}>{t('drill.progress')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {plays.map((play) => {
            const title = mediaTitle(play, t('rankings.unnamed'));
            const percent = play.progress === null ? null : Math.round(play.progress * 1000) / 10;
            return (
              <Table.Tr key={play.sessionId} data-testid="recent-play">
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{shanghaiDateTime(play.startedAt)}</Table.Td>
                <Table.Td>
                  <Text size="sm">{title}</Text>
                  <Text size="xs" c="dimmed">
                    {t(`mediaTypes.${play.mediaType}`)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {deviceDisplayName(play.client, play.deviceName, t('rankings.unnamed'))}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {t(`platforms.${play.platform}`)}
                  </Text>
                </Table.Td>
                <Table.Td>{play.playMethod || '—'}</Table.Td>
                <Table.Td ta="right">{formatWatchMs(play.watchMs, language)}</Table.Td>
                <Table.Td ta="right">{formatBytes(play.bytes)}</Table.Td>
                <Table.Td>
                  {percent === null ? (
                    <Text size="xs" c="dimmed">
                      {t('drill.noProgress')}
                    </Text>
                  ) : (
                    <Group gap="xs" wrap="nowrap">
                      <Progress
                        value={percent}
                        size="md"
                        style={{ flex: 1 }}
                        aria-label={t('drill.progress')}
                        data-testid="play-progress"
                        data-value={percent}
                      />
                      <Text size="xs" w={48} ta="right">
                        {formatRatio(play.progress, language, 0)}
                      </Text>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
