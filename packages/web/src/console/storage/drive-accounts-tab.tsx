import { useState } from 'react';
import { Badge, Button, Code, Group, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { endpoints, type DriveAccount } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { DeleteRecordDialog } from '../../shell/delete-record-dialog.js';
import { QueryState } from '../../shell/query-state.js';
import { DeleteIconButton, EditIconButton } from '../../shell/row-action-icons.js';
import { DriveAccountFormModal } from './drive-account-form-modal.js';
import { useStorageEndpointQuery, useStorageTarget } from './storage-query.js';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The drive accounts of the storage node: list, add, change, delete. Credentials are never shown. */
export function DriveAccountsTab() {
  const { t } = useTranslation('storage');
  const target = useStorageTarget();
  const query = useStorageEndpointQuery(endpoints.storage.listDriveAccounts, {});
  const [editing, setEditing] = useState<DriveAccount | undefined>();
  const [formOpen, setFormOpen] = useState(false);
  const [deleting, setDeleting] = useState<DriveAccount | undefined>();

  const remove = useEndpointMutation(
    (call, account: DriveAccount) =>
      call(endpoints.storage.deleteDriveAccount, {
        params: { accountId: account.id },
        headers: target.headers,
      }),
    [endpoints.storage.listDriveAccounts],
  );

  return (
    <>
      <Group justify="flex-end" mb="sm">
        <Button
          leftSection={<IconPlus size={16} />}
          onClick={() => {
            setEditing(undefined);
            setFormOpen(true);
          }}
          data-testid="drive-account-create"
        >
          {t('drives.create')}
        </Button>
      </Group>
      <QueryState query={query} skeletonRows={3}>
        {(data) =>
          data.accounts.length === 0 ? (
            <Text c="dimmed" data-testid="drive-accounts-empty">
              {t('drives.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table striped highlightOnHover data-testid="drive-accounts-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('drives.name')}</Table.Th>
                    <Table.Th>{t('drives.kind')}</Table.Th>
                    <Table.Th>{t('drives.url')}</Table.Th>
                    <Table.Th>{t('drives.userAgent')}</Table.Th>
                    <Table.Th>{t('drives.mounts')}</Table.Th>
                    <Table.Th>{t('drives.updated')}</Table.Th>
                    <Table.Th>{t('common:actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.accounts.map((account) => (
                    <Table.Tr key={account.id} data-testid="drive-account-row" data-account-id={account.id}>
                      <Table.Td fw={500}>{account.name}</Table.Td>
                      <Table.Td>
                        <Badge variant="light">{t(`provider.${account.kind}`)}</Badge>
                      </Table.Td>
                      <Table.Td>
                        <Code style={{ wordBreak: 'break-all' }}>{text(account.config.url)}</Code>
                      </Table.Td>
                      <Table.Td>
                        {text(account.config.userAgent) || (
                          <Text size="sm" c="dimmed">
                            {t('drives.userAgentDefault')}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{account.mountCount}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>
                        {formatDateTime(account.updatedAt)}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <EditIconButton
                            ariaLabel={t('drives.editNamed', { name: account.name })}
                            onClick={() => {
                              setEditing(account);
                              setFormOpen(true);
                            }}
                            testId="drive-account-edit"
                          />
                          <DeleteIconButton
                            ariaLabel={t('drives.deleteNamed', { name: account.name })}
                            onClick={() => setDeleting(account)}
                            testId="drive-account-delete"
                          />
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
      <DriveAccountFormModal opened={formOpen} account={editing} onClose={() => setFormOpen(false)} />
      <DeleteRecordDialog
        record={deleting}
        variables={deleting}
        mutation={remove}
        namespace="storage"
        keyPrefix="drives"
        onClose={() => setDeleting(undefined)}
      />
    </>
  );
}
