import { Badge, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { endpoints, type LegacyNodeTypeReport } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from './node-badges.js';
import { serviceTypeKey } from './node-status.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/**
 * External records a legacy multi-container install left behind (STANDALONE only, read-only). Shown
 * only when there are any; promotion itself is not offered here.
 */
export function LegacyNodesCard() {
  const { t } = useTranslation('nodes');
  const query = useEndpointQuery(endpoints.config.getLegacyNodesReport, {});
  const report = query.data;
  if (!report || report.storage.externalNodes.length + report.playAgent.externalNodes.length === 0)
    return null;
  return (
    <Card withBorder padding="md" data-testid="legacy-nodes-card">
      <Title order={2} size="h4" mb="xs">
        {t('legacy.title')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('legacy.intro')}
      </Text>
      <Stack gap="sm">
        {[report.storage, report.playAgent]
          .filter((entry) => entry.externalNodes.length > 0)
          .map((entry) => (
            <LegacyType key={entry.serviceType} entry={entry} />
          ))}
      </Stack>
    </Card>
  );
}

function LegacyType({ entry }: { entry: LegacyNodeTypeReport }) {
  const { t } = useTranslation('nodes');
  const verdict = entry.promotable ? 'promotable' : entry.choiceRequired ? 'choiceRequired' : 'none';
  return (
    <div>
      <Group justify="space-between" gap="xs">
        <Text size="sm" fw={500}>
          {t(serviceTypeKey(entry.serviceType))}
        </Text>
        <Badge variant="light" color={verdict === 'none' ? 'gray' : 'blue'}>
          {t(`legacy.${verdict}`)}
        </Badge>
      </Group>
      <Stack gap={4} mt={4}>
        {entry.externalNodes.map((node) => (
          <Group key={node.nodeId} gap="xs" wrap="nowrap">
            <Code>{node.nodeId}</Code>
            <Text size="sm" truncate>
              {node.name}
            </Text>
            <StatusBadge status={node.status} />
            {node.disabled && (
              <Badge color="gray" size="sm">
                {t('disabledBadge')}
              </Badge>
            )}
          </Group>
        ))}
      </Stack>
    </div>
  );
}
