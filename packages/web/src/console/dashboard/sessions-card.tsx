import { useEffect, useState } from 'react';
import { Badge, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import type { ActiveSession } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatDuration } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import type { DashboardData } from './dashboard-data.js';
import {
  clientLabel,
  DASHBOARD_REFRESH_MS,
  elapsedSeconds,
  mediaTitle,
  nodeNames,
  playbackPercent,
} from './dashboard-view.js';

/** The current time, advanced every 10 s (for "playing for …"). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), DASHBOARD_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** What is playing now: user, media, progress, client and device, node, and since when. */
export function SessionsCard({ data }: { data: DashboardData }) {
  const { t } = useTranslation('dashboard');
  const names = nodeNames(data.health.data?.nodes ?? []);
  const now = useNow();
  return (
    <Paper withBorder p="md" radius="md" mb="md">
      <Title order={2} size="h4" mb="sm">
        {t('sessions.title')}
      </Title>
      <QueryState query={data.sessions} skeletonRows={3}>
        {(answer) =>
          answer.sessions.length === 0 ? (
            <Text c="dimmed" size="sm" data-testid="dashboard-sessions-none">
              {t('sessions.none')}
            </Text>
          ) : (
            <>
              <Table.ScrollContainer minWidth={860}>
                <Table verticalSpacing="xs" data-testid="dashboard-sessions-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('sessions.user')}</Table.Th>
                      <Table.Th>{t('sessions.media')}</Table.Th>
                      <Table.Th miw={180}>{t('sessions.progress')}</Table.Th>
                      <Table.Th>{t('sessions.client')}</Table.Th>
                      <Table.Th>{t('sessions.node')}</Table.Th>
                      <Table.Th>{t('sessions.since')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {answer.sessions.map((session) => (
                      <SessionRow
                        key={session.sessionId}
                        session={session}
                        nodeName={names.get(session.nodeId)}
                        now={now}
                      />
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              {answer.total > answer.sessions.length && (
                <Text size="sm" c="dimmed" mt="xs">
                  {t('sessions.more', { shown: answer.sessions.length, total: answer.total })}
                </Text>
              )}
            </>
          )
        }
      </QueryState>
    </Paper>
  );
}

function SessionRow({
  session,
  nodeName,
  now,
}: {
  session: ActiveSession;
  nodeName: string | undefined;
  now: number;
}) {
  const { t } = useTranslation('dashboard');
  const title = mediaTitle(session);
  const percent = playbackPercent(session.positionSec, session.runtimeSec);
  const shown = percent === null ? null : Math.floor(percent);
  return (
    <Table.Tr data-testid="dashboard-session-row" data-session-id={session.sessionId}>
      <Table.Td>
        <Text size="sm" fw={500}>
          {session.username}
        </Text>
        <Text size="xs" c="dimmed">
          {session.clientIp}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{title}</Text>
        <Badge size="xs" variant="light" color="gray">
          {t(`sessions.mediaType.${session.mediaType}`)}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Stack gap={4}>
          <Progress
            value={percent ?? 0}
            size="md"
            radius="sm"
            aria-label={t('sessions.progressLabel', { media: title, percent: shown ?? 0 })}
            data-testid="session-progress"
            data-percent={shown ?? ''}
          />
          <Text size="xs" c="dimmed">
            {session.runtimeSec !== null
              ? t('sessions.position', {
                  // A stream without playback reports has no known position: "—", not 0:00.
                  position: formatDuration(session.positionSec),
                  runtime: formatDuration(session.runtimeSec),
                })
              : t('sessions.positionOnly', { position: formatDuration(session.positionSec) })}
            {` · ${session.playMethod}`}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{clientLabel(session)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{nodeName ?? session.nodeId}</Text>
        {nodeName && (
          <Text size="xs" c="dimmed">
            {session.nodeId}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Text size="sm">{formatDateTime(session.startedAt)}</Text>
        <Text size="xs" c="dimmed">
          {t('sessions.elapsed', { duration: formatDuration(elapsedSeconds(session.startedAt, now)) })}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
