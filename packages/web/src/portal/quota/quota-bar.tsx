import { Badge, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import type { QuotaUsage } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatDateTime } from '../../i18n/format.js';
import { percentLabel, usageColor, usagePercent } from './quota-view.js';

/** One quota: its name and period, a usage bar, used of limit, and when the period ends. */
export function QuotaBar({ name, quota }: { name: string; quota: QuotaUsage }) {
  const { t } = useTranslation('myQuota');
  const percent = usagePercent(quota.usedBytes, quota.limitBytes);
  const shown = percentLabel(quota.usedBytes, quota.limitBytes);
  return (
    <Paper withBorder p="md" radius="md" data-testid="quota" data-scope={quota.scope}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Group gap="xs">
            <Text fw={600}>{name}</Text>
            <Text size="sm" c="dimmed">
              {`${quota.amount} ${quota.unit} ${t(`period.${quota.period}`)}`}
            </Text>
          </Group>
          <Group gap="xs">
            {quota.exhausted && quota.enabled && (
              <Badge color="red" data-testid="quota-exhausted">
                {t('exhausted')}
              </Badge>
            )}
            {!quota.enabled && (
              <Badge color="gray" variant="outline">
                {t('notEnforced')}
              </Badge>
            )}
          </Group>
        </Group>
        <Progress
          value={percent}
          color={usageColor(quota)}
          size="lg"
          radius="sm"
          aria-label={t('barLabel', { name, percent: shown })}
          data-testid="quota-bar"
          data-percent={Math.floor(percent)}
        />
        <Group justify="space-between" gap="xs">
          <Text size="sm">
            {t('usedOf', { used: formatBytes(quota.usedBytes), limit: formatBytes(quota.limitBytes) })}
          </Text>
          <Text size="sm" c="dimmed">
            {t('percent', { percent: shown })}
          </Text>
        </Group>
        <Text size="xs" c="dimmed">
          {t('periodRange', {
            start: formatDateTime(quota.periodStart, 'minute'),
            end: formatDateTime(quota.periodEnd, 'minute'),
          })}
        </Text>
        {!quota.enabled && (
          <Text size="xs" c="dimmed">
            {t('notEnforcedHint')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
