import { useState } from 'react';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy, IconFolderOpen, IconPlugConnected, IconPlus } from '@tabler/icons-react';
import { endpoints, type Mount } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../../api/client.js';
import { formatDateTime } from '../../i18n/format.js';
import { useErrorText } from '../../shell/error-alert.js';
import { QueryState } from '../../shell/query-state.js';
import { DeleteRecordDialog } from '../../shell/delete-record-dialog.js';
import { DeleteIconButton, EditIconButton } from '../../shell/row-action-icons.js';
import { mountLocation } from './mount-form.js';
import { MountFormModal } from './mount-form-modal.js';
import { useStorageEndpointQuery, useStorageTarget } from './storage-query.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

/** The mounts of the storage node: list, create, edit, check, delete, and the way into the file browser. */
export function MountsTab() {
  const { t } = useTranslation('storage');
  const errorText = useErrorText();
  const target = useStorageTarget();
  const query = useStorageEndpointQuery(endpoints.storage.listMounts, {});
  const [editing, setEditing] = useState<Mount | undefined>();
  const [formOpen, setFormOpen] = useState(false);
  const [deleting, setDeleting] = useState<Mount | undefined>();
  const [checking, setChecking] = useState<string | undefined>();

  const remove = useEndpointMutation(
    (call, mount: Mount) =>
      call(endpoints.storage.deleteMount, { params: { mountId: mount.id }, headers: target.headers }),
    [endpoints.storage.listMounts],
  );
  const check = useEndpointMutation((call, mount: Mount) =>
    call(endpoints.storage.checkMount, { params: { mountId: mount.id }, headers: target.headers }),
  );

  const runCheck = (mount: Mount) => {
    setChecking(mount.id);
    check.mutate(mount, {
      onSuccess: (answer) =>
        notifications.show(
          answer.ok
            ? { color: 'green', message: t('mounts.checkOk', { name: mount.name }) }
            : {
                color: 'red',
                message: t('mounts.checkFailed', {
                  name: mount.name,
                  reason: answer.error
                    ? errorText(new ApiError(0, answer.error.code, answer.error.message))
                    : '',
                }),
              },
        ),
      onError: (error) => notifications.show({ color: 'red', message: errorText(error) }),
      onSettled: () => setChecking(undefined),
    });
  };

  return (
    <>
      <Group justify="flex-end" mb="sm">
        <Button
          leftSection={<IconPlus size={16} />}
          onClick={() => {
            setEditing(undefined);
            setFormOpen(true);
          }}
          data-testid="mount-create"
        >
          {t('mounts.create')}
        </Button>
      </Group>
      <QueryState query={query} skeletonRows={4}>
        {(data) =>
          data.mounts.length === 0 ? (
            <Text c="dimmed" data-testid="mounts-empty">
              {t('mounts.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table striped highlightOnHover data-testid="mounts-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('mounts.name')}</Table.Th>
                    <Table.Th>{t('mounts.provider')}</Table.Th>
                    <Table.Th>{t('mounts.location')}</Table.Th>
                    <Table.Th>{t('mounts.updated')}</Table.Th>
                    <Table.Th>{t('common:actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.mounts.map((mount) => (
                    <Table.Tr key={mount.id} data-testid="mount-row" data-mount-id={mount.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`mounts/${mount.id}`} fw={500}>
                          {mount.name}
                        </Anchor>
                        <Group gap={2} wrap="nowrap">
                          <Text size="xs" c="dimmed" ff="monospace" data-testid="mount-id">
                            {mount.id}
                          </Text>
                          <CopyButton value={mount.id}>
                            {({ copied, copy }) => (
                              <Tooltip label={copied ? t('common:copied') : t('mounts.copyId')}>
                                <ActionIcon
                                  variant="subtle"
                                  size="xs"
                                  color={copied ? 'teal' : 'gray'}
                                  onClick={copy}
                                  aria-label={t('mounts.copyId')}
                                  data-testid="mount-copy-id"
                                >
                                  {copied ? <IconCheck size={12} /> : <IconCopy size={12} />}
                                </ActionIcon>
                              </Tooltip>
                            )}
                          </CopyButton>
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="light">{t(`provider.${mount.provider}`)}</Badge>
                      </Table.Td>
                      <Table.Td>
                        <Code style={{ wordBreak: 'break-all' }}>{mountLocation(mount)}</Code>
                      </Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(mount.updatedAt)}</Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Tooltip label={t('mounts.browse')}>
                            <ActionIcon
                              variant="subtle"
                              component={Link}
                              to={`mounts/${mount.id}`}
                              aria-label={t('mounts.browseNamed', { name: mount.name })}
                              data-testid="mount-browse"
                            >
                              <IconFolderOpen size={18} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label={t('mounts.check')}>
                            <ActionIcon
                              variant="subtle"
                              onClick={() => runCheck(mount)}
                              loading={checking === mount.id}
                              aria-label={t('mounts.checkNamed', { name: mount.name })}
                              data-testid="mount-check"
                            >
                              <IconPlugConnected size={18} />
                            </ActionIcon>
                          </Tooltip>
                          <EditIconButton
                            ariaLabel={t('mounts.editNamed', { name: mount.name })}
                            onClick={() => {
                              setEditing(mount);
                              setFormOpen(true);
                            }}
                            testId="mount-edit"
                          />
                          <DeleteIconButton
                            ariaLabel={t('mounts.deleteNamed', { name: mount.name })}
                            onClick={() => setDeleting(mount)}
                            testId="mount-delete"
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
      <MountFormModal opened={formOpen} mount={editing} onClose={() => setFormOpen(false)} />
      <DeleteRecordDialog
        record={deleting}
        variables={deleting}
        mutation={remove}
        namespace="storage"
        keyPrefix="mounts"
        onClose={() => setDeleting(undefined)}
      />
    </>
  );
}
