import { Badge, Group, Paper, Progress, SimpleGrid, Stack, Text } from '@mantine/core';
import { type QuotaUsage, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { formatBytes, formatDateTime } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import { routeLabel, type RouteOption } from './route-options.js';
import { sortUsage, usageColor, usagePercent } from './quota-usage.js';

/** What the user used of each stored quota in its current period (GET …/usage). */
export function QuotaUsageList({ userId, options }: { userId: string; options: readonly RouteOption[] }) {
  const { t } = useTranslation('users');
  const query = useEndpointQuery(endpoints.user.getUserUsage, { params: { id: userId } });
  return (
    <QueryState query={query} skeletonRows={2}>
      {(data) =>
        data.quotas.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="quota-usage-none">
            {t('quotas.noQuotas')}
          </Text>
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" data-testid="quota-usage">
            {sortUsage(data.quotas).map((quota) => {
              const name =
                quota.scope === 'total'
                  ? t('quotas.total')
                  : routeLabel({ kind: quota.kind ?? 'node', id: quota.id ?? '' }, options);
              return (
                <UsageBar
                  key={`${quota.scope}:${quota.kind ?? ''}:${quota.id ?? ''}`}
                  name={name}
                  quota={quota}
                />
              );
            })}
          </SimpleGrid>
        )
      }
    </QueryState>
  );
}

function UsageBar({ name, quota }: { name: string; quota: QuotaUsage }) {
  const { t } = useTranslation('users');
  const percent = usagePercent(quota.usedBytes, quota.limitBytes);
  const shown = Math.floor(percent);
  return (
    <Paper
      withBorder
      p="sm"
      radius="md"
      data-testid="quota-usage-item"
      data-scope={quota.scope}
      data-route={quota.id}
    >
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text fw={600} size="sm" truncate>
            {name}
          </Text>
          {!quota.enabled ? (
            <Badge color="gray" variant="outline" size="sm">
              {t('quotas.notEnforced')}
            </Badge>
          ) : (
            quota.exhausted && (
              <Badge color="red" size="sm" data-testid="quota-usage-exhausted">
                {t('quotas.exhausted')}
              </Badge>
            )
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {`${quota.amount} ${quota.unit} ${t(`quotas.periods.${quota.period}`)}`}
        </Text>
        <Progress
          value={percent}
          color={usageColor(quota)}
          size="lg"
          radius="sm"
          aria-label={t('quotas.barLabel', { name, percent: shown })}
          data-testid="quota-usage-bar"
          data-percent={shown}
        />
        <Group justify="space-between" gap="xs">
          <Text size="sm">
            {t('quotas.usedOf', { used: formatBytes(quota.usedBytes), limit: formatBytes(quota.limitBytes) })}
          </Text>
          <Text size="sm" c="dimmed">
            {t('quotas.percent', { percent: shown })}
          </Text>
        </Group>
        <Text size="xs" c="dimmed">
          {t('quotas.periodEnds', { end: formatDateTime(quota.periodEnd) })}
        </Text>
      </Stack>
    </Paper>
  );
}
