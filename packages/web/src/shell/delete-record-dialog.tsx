import { notifications } from '@mantine/notifications';
import type { UseMutationResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../api/client.js';
import { ConfirmDialog } from './confirm-dialog.js';

/**
 * Confirms the deletion of one named record, runs it and says so once it is gone. The texts are the
 * `<keyPrefix>.deleteTitle`, `.deleteMessage` and `.deleted` messages of the caller's namespace, each given
 * the record's name.
 */
export function DeleteRecordDialog<TVariables>({
  record,
  variables,
  mutation,
  namespace,
  keyPrefix,
  onClose,
  onDeleted,
}: {
  /** The record to delete; the dialog is open while it is set. */
  record: { name: string } | undefined;
  variables: TVariables | undefined;
  mutation: UseMutationResult<unknown, ApiError, TVariables>;
  namespace: string;
  keyPrefix: string;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation(namespace);
  const name = record?.name ?? '';
  return (
    <ConfirmDialog
      opened={record !== undefined}
      title={t(`${keyPrefix}.deleteTitle`)}
      message={t(`${keyPrefix}.deleteMessage`, { name })}
      loading={mutation.isPending}
      error={mutation.error}
      onClose={() => {
        mutation.reset();
        onClose();
      }}
      onConfirm={() => {
        if (variables === undefined) return;
        mutation.mutate(variables, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t(`${keyPrefix}.deleted`, { name }) });
            onClose();
            onDeleted?.();
          },
        });
      }}
    />
  );
}
