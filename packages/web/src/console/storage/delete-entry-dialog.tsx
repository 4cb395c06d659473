import { useState } from 'react';
import { Checkbox } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { StorageEntry } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../shell/confirm-dialog.js';
import { useStorageTarget } from './storage-query.js';
import { endpoints } from '@svc/contracts';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { endpointPath } from '../../api/endpoint-client.js';

/** Deletes a file or folder after confirmation; a folder with content only with "delete its content". */
export function DeleteEntryDialog({
  mountId,
  entry,
  onClose,
}: {
  mountId: string;
  entry: StorageEntry | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('storage');
  const target = useStorageTarget();
  const [recursive, setRecursive] = useState(false);
  // Another entry starts unchecked again.
  const [shownEntry, setShownEntry] = useState(entry);
  if (entry !== shownEntry) {
    setShownEntry(entry);
    setRecursive(false);
  }
  const remove = useEndpointMutation(
    (call, body: { path: string; recursive: boolean }) =>
      call(endpoints.storage.deleteEntry, { params: { mountId }, body, headers: target.headers }),
    [endpointPath(endpoints.storage.browse, { mountId })],
  );
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      opened={entry !== undefined}
      title={t(entry?.type === 'dir' ? 'files.deleteFolderTitle' : 'files.deleteFileTitle')}
      message={t('files.deleteMessage', { name: entry?.name ?? '' })}
      loading={remove.isPending}
      error={remove.error}
      onClose={close}
      onConfirm={() => {
        if (!entry) return;
        remove.mutate(
          { path: entry.path, recursive: entry.type === 'dir' && recursive },
          {
            onSuccess: () => {
              notifications.show({ color: 'green', message: t('files.deleted', { name: entry.name }) });
              close();
            },
          },
        );
      }}
    >
      {entry?.type === 'dir' && (
        <Checkbox
          label={t('files.deleteRecursive')}
          checked={recursive}
          onChange={(event) => setRecursive(event.currentTarget.checked)}
          data-testid="delete-recursive"
        />
      )}
    </ConfirmDialog>
  );
}
