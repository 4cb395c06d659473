import { useState } from 'react';
import { ActionIcon, Group, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import type { Library } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useApiMutation } from '../../api/hooks.js';
import { ConfirmDialog } from '../../shell/confirm-dialog.js';
import { LibraryFormModal } from './library-form-modal.js';

/** Edit and delete buttons of a library, with their dialog and confirmation. */
export function LibraryActions({ library, onDeleted }: { library: Library; onDeleted?: () => void }) {
  const { t } = useTranslation('libraries');
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useApiMutation(
    (api, id: string) => api(`/api/media/libraries/${id}`, { method: 'DELETE' }),
    ['/api/media/libraries'],
  );
  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip label={t('common:edit')}>
        <ActionIcon
          variant="subtle"
          onClick={() => setEditing(true)}
          aria-label={t('list.editNamed', { name: library.name })}
          data-testid="library-edit"
        >
          <IconPencil size={18} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('common:delete')}>
        <ActionIcon
          variant="subtle"
          color="red"
          onClick={() => setDeleting(true)}
          aria-label={t('list.deleteNamed', { name: library.name })}
          data-testid="library-delete"
        >
          <IconTrash size={18} />
        </ActionIcon>
      </Tooltip>
      <LibraryFormModal opened={editing} library={library} onClose={() => setEditing(false)} />
      <ConfirmDialog
        opened={deleting}
        title={t('list.deleteTitle')}
        message={t('list.deleteMessage', { name: library.name })}
        loading={remove.isPending}
        error={remove.error}
        onClose={() => {
          remove.reset();
          setDeleting(false);
        }}
        onConfirm={() =>
          remove.mutate(library.id, {
            onSuccess: () => {
              notifications.show({ color: 'green', message: t('list.deleted', { name: library.name }) });
              setDeleting(false);
              onDeleted?.();
            },
          })
        }
      />
    </Group>
  );
}
