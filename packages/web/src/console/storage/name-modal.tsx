import { useEffect } from 'react';
import { Modal, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { endpoints, mkdirRequestSchema, renameRequestSchema, type StorageEntry } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { isPlainName, joinPath } from './mount-path.js';
import { useStorageTarget } from './storage-query.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { endpointPath } from '../../api/endpoint-client.js';
import { FormActions } from '../../shell/form-actions.js';

export type NameAction = { kind: 'mkdir'; dir: string } | { kind: 'rename'; entry: StorageEntry };

/** Asks for a name: a new folder in `dir`, or the new name of an entry (a name, never a path). */
export function NameModal({
  mountId,
  action,
  onClose,
}: {
  mountId: string;
  action: NameAction | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('storage');
  const target = useStorageTarget();
  const form = useForm({
    mode: 'controlled',
    initialValues: { name: '' },
    validate: (values: { name: string }) => {
      const errors =
        action?.kind === 'rename'
          ? zodValidate(renameRequestSchema, (v: { name: string }) => ({
              path: action.entry.path,
              newName: v.name.trim(),
            }))(values)
          : zodValidate(mkdirRequestSchema, (v: { name: string }) => ({
              path: joinPath(action?.kind === 'mkdir' ? action.dir : '', v.name.trim()),
            }))(values);
      const message = errors.newName ?? errors.path;
      if (message) return { name: message };
      return isPlainName(values.name) ? {} : { name: t('files.badName') };
    },
  });
  const { setValues, clearErrors } = form;
  useEffect(() => {
    if (action) {
      setValues({ name: action.kind === 'rename' ? action.entry.name : '' });
      clearErrors();
    }
  }, [action, setValues, clearErrors]);

  const save = useEndpointMutation(
    (call, name: string) =>
      action?.kind === 'rename'
        ? call(endpoints.storage.rename, {
            params: { mountId },
            body: { path: action.entry.path, newName: name },
            headers: target.headers,
          })
        : call(endpoints.storage.mkdir, {
            params: { mountId },
            body: { path: joinPath(action?.kind === 'mkdir' ? action.dir : '', name), parents: false },
            headers: target.headers,
          }),
    [endpointPath(endpoints.storage.browse, { mountId })],
  );
  const close = () => {
    save.reset();
    onClose();
  };

  return (
    <Modal
      opened={action !== undefined}
      onClose={close}
      title={
        action?.kind === 'rename'
          ? t('files.renameTitle', { name: action.entry.name })
          : t('files.mkdirTitle')
      }
    >
      <form
        noValidate
        data-testid="name-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(values.name.trim(), {
            onSuccess: () => {
              notifications.show({
                color: 'green',
                message: t(action?.kind === 'rename' ? 'files.renamed' : 'files.created', {
                  name: values.name.trim(),
                }),
              });
              close();
            },
          }),
        )}
      >
        <Stack gap="sm">
          <TextInput
            label={action?.kind === 'rename' ? t('files.newName') : t('files.folderName')}
            data-autofocus
            data-testid="name-input"
            {...form.getInputProps('name')}
          />
          <FormActions
            mutation={save}
            form={form}
            onCancel={close}
            submitTestId="name-save"
            submitLabel={action?.kind === 'rename' ? t('files.rename') : t('common:create')}
          />
        </Stack>
      </form>
    </Modal>
  );
}
