import { useState } from 'react';
import { Button, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconLock, IconSend } from '@tabler/icons-react';
import { endpoints, type OutboundWebhook } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../../api/endpoint-hooks.js';
import { useSession } from '../../../session/session.js';
import { DeleteRecordDialog } from '../../../shell/delete-record-dialog.js';
import { DeleteIconButton, EditIconButton } from '../../../shell/row-action-icons.js';
import { subscriptionNames, type SubscribableLibrary } from './library-options.js';
import { TableBadge } from './table-badge.js';

function EndpointRow({
  endpoint,
  libraries,
  testing,
  onEdit,
  onTest,
}: {
  endpoint: OutboundWebhook;
  libraries: readonly SubscribableLibrary[];
  testing: boolean;
  onEdit: () => void;
  onTest: () => void;
}) {
  const { t } = useTranslation('webhooks');
  const [deleting, setDeleting] = useState(false);
  // A test send to a private-network target shows its answer: administrators only (as the server rules).
  const isAdmin = useSession().user?.role === 'admin';
  const testRefused = endpoint.allowPrivateNetwork && !isAdmin;
  const remove = useEndpointMutation(
    (call, id: string) => call(endpoints.media.deleteOutboundWebhook, { params: { id } }),
    [endpoints.media.listOutboundWebhooks],
  );
  const names = subscriptionNames(endpoint.libraryIds, libraries, (id) => t('form.deletedLibrary', { id }));
  return (
    <Table.Tr data-testid="webhook-row" data-webhook-id={endpoint.id} data-webhook-name={endpoint.name}>
      <Table.Td>
        <Text fw={500}>{endpoint.name}</Text>
        {endpoint.allowPrivateNetwork && (
          <TableBadge size="xs" color="orange" variant="light">
            {t('list.privateNetwork')}
          </TableBadge>
        )}
      </Table.Td>
      <Table.Td>
        <TableBadge variant="outline">{endpoint.method}</TableBadge>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          {endpoint.urlSensitive && (
            <Tooltip label={t('list.urlHidden')}>
              <IconLock size={14} aria-label={t('list.urlHidden')} />
            </Tooltip>
          )}
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }} data-testid="webhook-row-url">
            {endpoint.url}
          </Text>
        </Group>
      </Table.Td>
      <Table.Td>
        <TableBadge
          color={endpoint.enabled ? 'green' : 'gray'}
          variant="light"
          data-testid="webhook-row-enabled"
        >
          {endpoint.enabled ? t('common:enabled') : t('common:disabled')}
        </TableBadge>
      </Table.Td>
      <Table.Td data-testid="webhook-row-libraries">
        {names === null ? (
          <Text size="sm" c="dimmed">
            {t('list.allLibraries')}
          </Text>
        ) : (
          <Stack gap={0}>
            {names.map((name) => (
              <Text key={name} size="sm">
                {name}
              </Text>
            ))}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('list.testAdminOnly')} disabled={!testRefused}>
            <Button
              size="xs"
              variant="light"
              leftSection={<IconSend size={14} />}
              loading={testing}
              disabled={testRefused}
              onClick={onTest}
              aria-label={t('list.testNamed', { name: endpoint.name })}
              data-testid="webhook-test"
            >
              {t('list.test')}
            </Button>
          </Tooltip>
          <EditIconButton
            ariaLabel={t('list.editNamed', { name: endpoint.name })}
            onClick={onEdit}
            testId="webhook-edit"
          />
          <DeleteIconButton
            ariaLabel={t('list.deleteNamed', { name: endpoint.name })}
            onClick={() => setDeleting(true)}
            testId="webhook-delete"
          />
        </Group>
        <DeleteRecordDialog
          record={deleting ? endpoint : undefined}
          variables={endpoint.id}
          mutation={remove}
          namespace="webhooks"
          keyPrefix="list"
          onClose={() => setDeleting(false)}
        />
      </Table.Td>
    </Table.Tr>
  );
}

/** The endpoints with their method, URL (masked when sensitive), state, subscription and actions. */
export function EndpointsTable({
  endpoints,
  libraries,
  testingId,
  onEdit,
  onTest,
}: {
  endpoints: readonly OutboundWebhook[];
  libraries: readonly SubscribableLibrary[];
  testingId: string | null;
  onEdit: (endpoint: OutboundWebhook) => void;
  onTest: (endpoint: OutboundWebhook) => void;
}) {
  const { t } = useTranslation('webhooks');
  if (endpoints.length === 0) {
    return (
      <Text c="dimmed" size="sm" data-testid="webhooks-empty">
        {t('list.empty')}
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped highlightOnHover verticalSpacing="sm" data-testid="webhooks-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('list.name')}</Table.Th>
            <Table.Th>{t('list.method')}</Table.Th>
            <Table.Th>{t('list.url')}</Table.Th>
            <Table.Th>{t('list.enabled')}</Table.Th>
            <Table.Th>{t('list.libraries')}</Table.Th>
            <Table.Th>{t('common:actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {endpoints.map((endpoint) => (
            <EndpointRow
              key={endpoint.id}
              endpoint={endpoint}
              libraries={libraries}
              testing={testingId === endpoint.id}
              onEdit={() => onEdit(endpoint)}
              onTest={() => onTest(endpoint)}
            />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
