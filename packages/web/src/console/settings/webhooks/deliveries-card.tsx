import { ActionIcon, Group, Paper, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { endpoints, type OutboundWebhookDelivery } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { formatDateTime } from '../../../i18n/format.js';
import { QueryState } from '../../../shell/query-state.js';
import { DELIVERY_REFRESH_MS, DELIVERY_STATUS_COLORS, hasUnfinishedDeliveries } from './delivery-status.js';
import { TableBadge } from './table-badge.js';

const LIMIT = 50;

function DeliveryRow({ delivery }: { delivery: OutboundWebhookDelivery }) {
  const { t } = useTranslation('webhooks');
  return (
    <Table.Tr
      data-testid="webhook-delivery-row"
      data-delivery-id={delivery.id}
      data-endpoint={delivery.endpointName}
      data-status={delivery.status}
    >
      <Table.Td>
        <Text size="sm" fw={500}>
          {delivery.endpointName}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" ff="monospace">
            {delivery.eventType}
          </Text>
          {delivery.test && (
            <TableBadge size="xs" variant="outline">
              {t('deliveries.test')}
            </TableBadge>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {delivery.title} · {delivery.libraryName}
        </Text>
      </Table.Td>
      <Table.Td>
        <TableBadge
          color={DELIVERY_STATUS_COLORS[delivery.status]}
          variant="light"
          data-testid="webhook-delivery-status"
        >
          {t(`deliveries.statuses.${delivery.status}`)}
        </TableBadge>
        {delivery.nextAttemptAt && (
          <Text size="xs" c="dimmed">
            {t('deliveries.nextAttempt', { time: formatDateTime(delivery.nextAttemptAt) })}
          </Text>
        )}
      </Table.Td>
      <Table.Td data-testid="webhook-delivery-attempts">
        {delivery.attempts} / {delivery.maxAttempts}
      </Table.Td>
      <Table.Td data-testid="webhook-delivery-http-status">{delivery.lastHttpStatus ?? '—'}</Table.Td>
      <Table.Td>
        <Text size="sm">{formatDateTime(delivery.createdAt)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDateTime(delivery.deliveredAt)}</Text>
      </Table.Td>
      <Table.Td maw={320}>
        <Text
          size="xs"
          c={delivery.lastError ? 'red' : 'dimmed'}
          style={{ wordBreak: 'break-word' }}
          data-testid="webhook-delivery-error"
        >
          {delivery.lastError ?? '—'}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

/** The latest 50 deliveries, read again every few seconds while any is still pending or retrying. */
export function DeliveriesCard() {
  const { t } = useTranslation('webhooks');
  const query = useEndpointQuery(
    endpoints.media.listOutboundWebhookDeliveries,
    { query: { limit: LIMIT } },
    {
      refetchInterval: (current) =>
        hasUnfinishedDeliveries(current.state.data?.deliveries ?? []) ? DELIVERY_REFRESH_MS : false,
    },
  );
  const unfinished = hasUnfinishedDeliveries(query.data?.deliveries ?? []);
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="section"
      aria-labelledby="webhook-deliveries-title"
      data-testid="webhook-deliveries"
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={2} size="h4" id="webhook-deliveries-title">
              {t('deliveries.title')}
            </Title>
            <Text size="sm" c="dimmed">
              {unfinished
                ? t('deliveries.autoRefresh', { seconds: DELIVERY_REFRESH_MS / 1000 })
                : t('deliveries.intro')}
            </Text>
          </div>
          <Tooltip label={t('common:refresh')}>
            <ActionIcon
              variant="light"
              onClick={() => void query.refetch()}
              loading={query.isFetching}
              aria-label={t('common:refresh')}
              data-testid="webhook-deliveries-refresh"
            >
              <IconRefresh size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
        <QueryState query={query} skeletonRows={4}>
          {(data) =>
            data.deliveries.length === 0 ? (
              <Text size="sm" c="dimmed" data-testid="webhook-deliveries-empty">
                {t('deliveries.empty')}
              </Text>
            ) : (
              <Table.ScrollContainer minWidth={1080}>
                <Table striped verticalSpacing="xs" data-testid="webhook-deliveries-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('deliveries.endpoint')}</Table.Th>
                      <Table.Th>{t('deliveries.event')}</Table.Th>
                      <Table.Th>{t('deliveries.status')}</Table.Th>
                      <Table.Th>{t('deliveries.attempts')}</Table.Th>
                      <Table.Th>{t('deliveries.lastHttpStatus')}</Table.Th>
                      <Table.Th>{t('deliveries.created')}</Table.Th>
                      <Table.Th>{t('deliveries.delivered')}</Table.Th>
                      <Table.Th>{t('deliveries.lastError')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.deliveries.map((delivery) => (
                      <DeliveryRow key={delivery.id} delivery={delivery} />
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )
          }
        </QueryState>
      </Stack>
    </Paper>
  );
}
