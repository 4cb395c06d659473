import { Card, Progress, Stack, Text, Title } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { formatBytes } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';

/** Space the node's video cache uses, asked from the node itself (refreshed every 15 s). */
export function CacheUsageCard({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation('cache');
  const query = useEndpointQuery(
    endpoints.nodeCache.getNodeCacheDiskUsage,
    { params: { nodeId } },
    { refetchInterval: 15_000 },
  );
  return (
    <Card withBorder data-testid="cache-usage">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('usage.title')}
        </Title>
        <QueryState query={query} skeletonRows={3}>
          {(usage) => (
            <Stack gap={4}>
              {usage.enabled ? null : <Text c="dimmed">{t('usage.disabled')}</Text>}
              <Text size="sm">
                {t('usage.used', {
                  used: formatBytes(usage.usedBytes),
                  capacity: formatBytes(usage.capacityBytes),
                })}
              </Text>
              <Progress
                value={
                  usage.capacityBytes > 0 ? Math.min(100, (usage.usedBytes / usage.capacityBytes) * 100) : 0
                }
              />
              <Text size="sm">{t('usage.inFlight', { size: formatBytes(usage.inFlightBytes) })}</Text>
              <Text size="sm">{t('usage.entries', { count: usage.entries, inUse: usage.entriesInUse })}</Text>
              <Text size="sm">
                {usage.fileSystem
                  ? t('usage.fileSystem', {
                      free: formatBytes(usage.fileSystem.freeBytes),
                      total: formatBytes(usage.fileSystem.totalBytes),
                    })
                  : t('usage.fileSystemUnknown')}
              </Text>
              <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {t('usage.directory', { directory: usage.directory })}
              </Text>
            </Stack>
          )}
        </QueryState>
      </Stack>
    </Card>
  );
}
