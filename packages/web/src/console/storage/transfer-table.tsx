import { ActionIcon, Badge, Group, Progress, Stack, Table, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlayerStop, IconRefresh } from '@tabler/icons-react';
import { endpoints, type ErrorCode, type Transfer, type TransferState } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.js';
import { formatBytes, formatDateTime, formatNumber } from '../../i18n/format.js';
import { useErrorText } from '../../shell/error-alert.js';
import { useStorageTarget } from './storage-query.js';
import { useTransferFeed } from './transfer-feed-context.js';
import { isActiveTransfer, transferPercent } from './transfer-merge.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

const STATE_COLORS: Record<TransferState, string> = {
  queued: 'gray',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
  cancelled: 'yellow',
};

export function TransferStateBadge({ state }: { state: TransferState }) {
  const { t } = useTranslation('storage');
  return (
    <Badge color={STATE_COLORS[state]} variant="light" data-testid="transfer-state" data-state={state}>
      {t(`transfers.state.${state}`)}
    </Badge>
  );
}

/** Transfers with live progress, cancel (queued, running) and retry (failed, cancelled). */
export function TransferTable({
  transfers,
  mountNames,
}: {
  transfers: readonly Transfer[];
  mountNames: ReadonlyMap<string, string>;
}) {
  const { t } = useTranslation('storage');
  const errorText = useErrorText();
  const target = useStorageTarget();
  const feed = useTransferFeed();
  const act = useEndpointMutation(
    (call, variables: { id: string; action: 'cancel' | 'retry' }) =>
      call(
        variables.action === 'cancel' ? endpoints.storage.cancelTransfer : endpoints.storage.retryTransfer,
        {
          params: { transferId: variables.id },
          headers: target.headers,
        },
      ),
    [endpoints.storage.listTransfers],
  );
  const run = (transfer: Transfer, action: 'cancel' | 'retry') =>
    act.mutate(
      { id: transfer.id, action },
      {
        onSuccess: (answer) => {
          feed.add([answer]);
          notifications.show({
            color: 'green',
            message: t(action === 'cancel' ? 'transfers.cancelAsked' : 'transfers.retried'),
          });
        },
        onError: (error) => notifications.show({ color: 'red', message: errorText(error) }),
      },
    );
  const place = (side: Transfer['source']) =>
    `${mountNames.get(side.mountId) ?? side.mountId}: /${side.path}`;

  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped data-testid="transfers-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('transfers.what')}</Table.Th>
            <Table.Th>{t('transfers.state.label')}</Table.Th>
            <Table.Th w={260}>{t('transfers.progress')}</Table.Th>
            <Table.Th>{t('transfers.created')}</Table.Th>
            <Table.Th>{t('common:actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {transfers.map((transfer) => {
            const percent = transferPercent(transfer);
            return (
              <Table.Tr
                key={transfer.id}
                data-testid="transfer-row"
                data-transfer-id={transfer.id}
                data-state={transfer.state}
              >
                <Table.Td>
                  <Stack gap={2}>
                    <Text size="sm" fw={500}>
                      {t(`transfers.kind.${transfer.kind}`)}
                      {transfer.attempt > 1
                        ? ` · ${t('transfers.attempt', { count: transfer.attempt })}`
                        : ''}
                    </Text>
                    <Text size="xs" style={{ wordBreak: 'break-all' }}>
                      {place(transfer.source)}
                    </Text>
                    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                      → {place(transfer.target)}
                    </Text>
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Stack gap={4} align="flex-start">
                    <TransferStateBadge state={transfer.state} />
                    {transfer.error && (
                      <Text size="xs" c="red" data-testid="transfer-error">
                        {errorText(transferError(transfer.error))}
                      </Text>
                    )}
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Stack gap={4}>
                    <Progress
                      value={percent}
                      color={STATE_COLORS[transfer.state]}
                      striped={transfer.state === 'running'}
                      animated={transfer.state === 'running'}
                      aria-label={t('transfers.progress')}
                      data-testid="transfer-progress"
                      data-value={Math.round(percent)}
                    />
                    <Text size="xs" c="dimmed">
                      {t('transfers.bytes', {
                        done: formatBytes(transfer.bytes.done),
                        total: formatBytes(transfer.bytes.total),
                        percent: Math.floor(percent),
                      })}
                      {' · '}
                      {t('transfers.files', {
                        done: formatNumber(transfer.files.done),
                        total: formatNumber(transfer.files.total),
                      })}
                      {transfer.state === 'running' && transfer.rate > 0
                        ? ` · ${t('transfers.rate', { rate: formatBytes(transfer.rate) })}`
                        : ''}
                    </Text>
                  </Stack>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text size="xs">{formatDateTime(transfer.createdAt)}</Text>
                  {transfer.createdBy && (
                    <Text size="xs" c="dimmed">
                      {transfer.createdBy}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {isActiveTransfer(transfer) && (
                      <Tooltip label={t('transfers.cancel')}>
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={t('transfers.cancel')}
                          onClick={() => run(transfer, 'cancel')}
                          data-testid="transfer-cancel"
                        >
                          <IconPlayerStop size={18} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                    {(transfer.state === 'failed' || transfer.state === 'cancelled') && (
                      <Tooltip label={t('transfers.retry')}>
                        <ActionIcon
                          variant="subtle"
                          aria-label={t('transfers.retry')}
                          onClick={() => run(transfer, 'retry')}
                          data-testid="transfer-retry"
                        >
                          <IconRefresh size={18} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A transfer's `{ code, message }` as an error the shared error text translates by code. */
function transferError(error: { code: ErrorCode; message: string }) {
  return new ApiError(0, error.code, error.message);
}
