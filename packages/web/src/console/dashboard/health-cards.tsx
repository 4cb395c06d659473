import { Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { InstanceHealth, NodeHealth } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../i18n/format.js';
import { QueryState } from '../../shell/query-state.js';
import type { DashboardData } from './dashboard-data.js';
import { nodeStatusColor, sortInstances } from './dashboard-view.js';

/** Registered service instances and node records with their state, side by side on wide screens. */
export function HealthCards({ data }: { data: DashboardData }) {
  const { t } = useTranslation('dashboard');
  return (
    <Stack gap="md" mb="md">
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('services.title')}
        </Title>
        <QueryState query={data.health} skeletonRows={4}>
          {(health) =>
            health.instances.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('services.none')}
              </Text>
            ) : (
              <ServicesTable instances={health.instances} />
            )
          }
        </QueryState>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          {t('nodes.title')}
        </Title>
        <QueryState query={data.health} skeletonRows={4}>
          {(health) =>
            health.nodes.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('nodes.none')}
              </Text>
            ) : (
              <NodesTable nodes={health.nodes} />
            )
          }
        </QueryState>
      </Paper>
    </Stack>
  );
}

function ServicesTable({ instances }: { instances: readonly InstanceHealth[] }) {
  const { t } = useTranslation('dashboard');
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="xs" data-testid="dashboard-services-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('services.service')}</Table.Th>
            <Table.Th>{t('services.address')}</Table.Th>
            <Table.Th>{t('services.status')}</Table.Th>
            <Table.Th>{t('services.lastHeartbeat')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sortInstances(instances).map((instance) => (
            <Table.Tr
              key={`${instance.service}/${instance.instanceId}`}
              data-testid="dashboard-service-row"
              data-service={instance.service}
              data-status={instance.status}
            >
              <Table.Td>
                <Text size="sm" fw={500}>
                  {t(`services.name.${instance.service}`)}
                </Text>
                {instance.nodeId && (
                  <Text size="xs" c="dimmed">
                    {instance.nodeId}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {instance.baseUrl}
                </Text>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Badge color={instance.status === 'up' ? 'green' : 'red'} variant="light">
                  {instance.status === 'up' ? t('services.up') : t('services.down')}
                </Badge>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(instance.lastHeartbeatAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function NodesTable({ nodes }: { nodes: readonly NodeHealth[] }) {
  const { t } = useTranslation('dashboard');
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table verticalSpacing="xs" data-testid="dashboard-nodes-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('nodes.name')}</Table.Th>
            <Table.Th>{t('nodes.type')}</Table.Th>
            <Table.Th>{t('nodes.status')}</Table.Th>
            <Table.Th>{t('nodes.lastHeartbeat')}</Table.Th>
            <Table.Th>{t('nodes.address')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {nodes.map((node) => (
            <Table.Tr
              key={node.nodeId}
              data-testid="dashboard-node-row"
              data-node-id={node.nodeId}
              data-status={node.status}
            >
              <Table.Td>
                <Text size="sm" fw={500}>
                  {node.name}
                </Text>
                <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                  {node.nodeId}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{t(`nodes.types.${node.serviceType}`)}</Text>
                {node.scope === 'EMBEDDED' && (
                  <Badge size="xs" variant="outline" color="gray">
                    {t('nodes.builtIn')}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Group gap={4} wrap="nowrap">
                  <Badge color={nodeStatusColor(node.status)} variant="light">
                    {t(`nodes.state.${node.status}`)}
                  </Badge>
                  {node.disabled && (
                    <Badge color="gray" variant="outline">
                      {t('nodes.disabled')}
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {node.lastHeartbeatAt ? formatDateTime(node.lastHeartbeatAt) : t('nodes.never')}
              </Table.Td>
              <Table.Td>
                {node.externalAddress ? (
                  <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {node.externalAddress.url}
                  </Text>
                ) : (
                  '—'
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
