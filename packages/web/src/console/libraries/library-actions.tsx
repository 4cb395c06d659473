import { useState } from 'react';
import { Group } from '@mantine/core';
import type { Library } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { DeleteRecordDialog } from '../../shell/delete-record-dialog.js';
import { DeleteIconButton, EditIconButton } from '../../shell/row-action-icons.js';
import { LibraryFormModal } from './library-form-modal.js';
import { endpoints } from '@svc/contracts';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

/** Edit and delete buttons of a library, with their dialog and confirmation. */
export function LibraryActions({ library, onDeleted }: { library: Library; onDeleted?: () => void }) {
  const { t } = useTranslation('libraries');
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useEndpointMutation(
    (call, id: string) => call(endpoints.media.deleteLibrary, { params: { id } }),
    [endpoints.media.listLibraries],
  );
  return (
    <Group gap={4} wrap="nowrap">
      <EditIconButton
        ariaLabel={t('list.editNamed', { name: library.name })}
        onClick={() => setEditing(true)}
        testId="library-edit"
      />
      <DeleteIconButton
        ariaLabel={t('list.deleteNamed', { name: library.name })}
        onClick={() => setDeleting(true)}
        testId="library-delete"
      />
      <LibraryFormModal opened={editing} library={library} onClose={() => setEditing(false)} />
      <DeleteRecordDialog
        record={deleting ? library : undefined}
        variables={library.id}
        mutation={remove}
        namespace="libraries"
        keyPrefix="list"
        onClose={() => setDeleting(false)}
        onDeleted={onDeleted}
      />
    </Group>
  );
}
