import { Anchor, Badge, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import type { LicenseStatusResponse, ListNodesResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSession } from '../../session/session.js';
import { slotUsage, type SlotUsage } from './licence-slots.js';

/** The install's edition and the licence slots of each worker type. */
export function SlotsCard({
  list,
  licence,
}: {
  list: Pick<ListNodesResponse, 'edition' | 'slotsUsed'>;
  licence: LicenseStatusResponse | undefined;
}) {
  const { t } = useTranslation('nodes');
  const session = useSession();
  const storage = slotUsage('svc-control-storage', list.slotsUsed, licence);
  const playAgent = slotUsage('svc-play-agent', list.slotsUsed, licence);
  return (
    <Card withBorder padding="md" data-testid="node-slots-card">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          {t('overview.slots')}
        </Title>
        <Badge
          variant="light"
          color={list.edition === 'DISTRIBUTED' ? 'teal' : 'gray'}
          data-testid="node-edition"
        >
          {t(`overview.editions.${list.edition}`)}
        </Badge>
      </Group>
      <Stack gap="xs">
        {storage && <SlotRow label={t('overview.slotsStorage')} usage={storage} testId="slots-storage" />}
        {playAgent && (
          <SlotRow label={t('overview.slotsPlayAgent')} usage={playAgent} testId="slots-play-agent" />
        )}
        {list.edition === 'STANDALONE' && (
          <Text size="xs" c="dimmed">
            {t('overview.standaloneHint')}
          </Text>
        )}
        {session.can('license') && (
          <Anchor component={Link} to="/console/license" size="sm">
            {t('overview.openLicence')}
          </Anchor>
        )}
      </Stack>
    </Card>
  );
}

function SlotRow({ label, usage, testId }: { label: string; usage: SlotUsage; testId: string }) {
  const { t } = useTranslation('nodes');
  const percent = usage.max ? Math.min(100, (usage.used / usage.max) * 100) : usage.used > 0 ? 100 : 0;
  return (
    <div data-testid={testId}>
      <Group justify="space-between" gap="xs">
        <Text size="sm">{label}</Text>
        <Text size="sm" c="dimmed">
          {usage.max === null
            ? t('overview.slotsUnknown', { used: usage.used })
            : t('overview.slotsValue', { used: usage.used, max: usage.max })}
        </Text>
      </Group>
      {usage.max !== null && (
        <Progress
          value={percent}
          color={usage.free === 0 ? 'orange' : 'blue'}
          size="sm"
          mt={4}
          aria-label={label}
        />
      )}
    </div>
  );
}
