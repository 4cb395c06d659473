import type { ReactNode } from 'react';
import { Badge, Group, Paper, SimpleGrid, Text } from '@mantine/core';
import { IconDatabase, IconPlayerPlay, IconServer, IconTopologyStar3 } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import type { DashboardData } from './dashboard-data.js';
import { storageTotals } from './dashboard-view.js';

function StatCard<T>({
  title,
  icon,
  query,
  testId,
  children,
}: {
  title: string;
  icon: ReactNode;
  query: UseQueryResult<T, unknown>;
  testId: string;
  children: (data: T) => ReactNode;
}) {
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Text size="sm" c="dimmed" fw={600} tt="uppercase">
          {title}
        </Text>
        {icon}
      </Group>
      <QueryState query={query} skeletonRows={2}>
        {children}
      </QueryState>
    </Paper>
  );
}

/** Counts at a glance: services up/down, nodes by state, sessions playing, storage used. */
export function SummaryCards({ data }: { data: DashboardData }) {
  const { t } = useTranslation('dashboard');
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="md" mb="md">
      <StatCard
        title={t('summary.services')}
        icon={<IconServer size={20} />}
        query={data.health}
        testId="dashboard-services-count"
      >
        {(health) => (
          <Group gap="xs" data-up={health.counts.instances.up} data-down={health.counts.instances.down}>
            <Badge color="green" size="lg" variant="light">
              {t('summary.servicesUp', { count: health.counts.instances.up })}
            </Badge>
            <Badge color={health.counts.instances.down > 0 ? 'red' : 'gray'} size="lg" variant="light">
              {t('summary.servicesDown', { count: health.counts.instances.down })}
            </Badge>
          </Group>
        )}
      </StatCard>
      <StatCard
        title={t('summary.nodes')}
        icon={<IconTopologyStar3 size={20} />}
        query={data.health}
        testId="dashboard-nodes-count"
      >
        {(health) => (
          <Group
            gap="xs"
            data-online={health.counts.nodes.ONLINE}
            data-pending={health.counts.nodes.PENDING}
            data-offline={health.counts.nodes.offline}
          >
            <Badge color="green" size="lg" variant="light">
              {t('summary.online', { count: health.counts.nodes.ONLINE })}
            </Badge>
            <Badge color={health.counts.nodes.PENDING > 0 ? 'yellow' : 'gray'} size="lg" variant="light">
              {t('summary.pending', { count: health.counts.nodes.PENDING })}
            </Badge>
            <Badge color={health.counts.nodes.offline > 0 ? 'red' : 'gray'} size="lg" variant="light">
              {t('summary.offline', { count: health.counts.nodes.offline })}
            </Badge>
          </Group>
        )}
      </StatCard>
      <StatCard
        title={t('summary.sessions')}
        icon={<IconPlayerPlay size={20} />}
        query={data.sessions}
        testId="dashboard-sessions-count"
      >
        {(sessions) => (
          <Text size="xl" fw={700} data-count={sessions.total}>
            {t('summary.sessionsCount', { count: sessions.total })}
          </Text>
        )}
      </StatCard>
      <StatCard
        title={t('summary.storage')}
        icon={<IconDatabase size={20} />}
        query={data.storage}
        testId="dashboard-storage-total"
      >
        {(storage) => {
          const totals = storageTotals(storage.mounts);
          return (
            <>
              <Text size="lg" fw={700}>
                {totals.reported > 0
                  ? t('summary.storageUsed', {
                      used: formatBytes(totals.used),
                      total: formatBytes(totals.total),
                    })
                  : t('summary.storageUnknown')}
              </Text>
              <Text size="sm" c="dimmed">
                {t('summary.mounts', { count: storage.mounts.length })}
              </Text>
            </>
          );
        }}
      </StatCard>
    </SimpleGrid>
  );
}
