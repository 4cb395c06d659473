import { Badge, Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { MountUsage } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import type { DashboardData } from './dashboard-data.js';
import { mountSpace } from './dashboard-view.js';

/** Space of each mount: a bar where the backend reports sizes, a note where it does not. */
export function StorageCard({ data }: { data: DashboardData }) {
  const { t } = useTranslation('dashboard');
  return (
    <Paper withBorder p="md" radius="md" mb="md">
      <Title order={2} size="h4" mb="sm">
        {t('storage.title')}
      </Title>
      <QueryState query={data.storage} skeletonRows={2}>
        {(answer) =>
          answer.mounts.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('storage.none')}
            </Text>
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" data-testid="dashboard-storage">
              {answer.mounts.map((mount) => (
                <MountBar key={mount.mountId} mount={mount} />
              ))}
            </SimpleGrid>
          )
        }
      </QueryState>
    </Paper>
  );
}

function MountBar({ mount }: { mount: MountUsage }) {
  const { t } = useTranslation('dashboard');
  const space = mountSpace(mount);
  const shown = space.percent === null ? null : Math.floor(space.percent);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="dashboard-mount" data-mount-id={mount.mountId}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text fw={600} size="sm" truncate>
            {mount.name}
          </Text>
          <Group gap={4} wrap="nowrap">
            <Badge size="sm" variant="light" color="gray">
              {t(`storage.provider.${mount.provider}`)}
            </Badge>
            {mount.status === 'unavailable' && (
              <Badge size="sm" color="red" data-testid="dashboard-mount-unavailable">
                {t('storage.unavailable')}
              </Badge>
            )}
          </Group>
        </Group>
        {shown !== null ? (
          <>
            <Progress
              value={space.percent ?? 0}
              color={space.color}
              size="lg"
              radius="sm"
              aria-label={t('storage.barLabel', { name: mount.name, percent: shown })}
              data-testid="dashboard-storage-bar"
              data-percent={shown}
            />
            <Group justify="space-between" gap="xs">
              <Text size="sm">
                {t('storage.used', {
                  used: formatBytes(mount.usedBytes),
                  total: formatBytes(mount.totalBytes),
                })}
              </Text>
              <Text size="sm" c="dimmed">
                {t('storage.percent', { percent: shown })}
              </Text>
            </Group>
            {mount.freeBytes !== null && (
              <Text size="xs" c="dimmed">
                {t('storage.free', { free: formatBytes(mount.freeBytes) })}
              </Text>
            )}
          </>
        ) : (
          <Text size="sm" c="dimmed">
            {mount.status === 'unavailable' ? t('storage.unavailableHint') : t('storage.noSize')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
