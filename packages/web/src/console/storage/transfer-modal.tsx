import { useEffect } from 'react';
import { Checkbox, Modal, NumberInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { endpoints, type StorageEntry, type TransferRequest, transferRequestSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { FolderPicker } from './folder-picker.js';
import { isPlainName, isSameOrInside, joinPath, parentPath } from './mount-path.js';
import { useStorageEndpointQuery, useStorageTarget } from './storage-query.js';
import { useTransferFeed } from './transfer-feed-context.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { FormActions } from '../../shell/form-actions.js';

export interface TransferAction {
  kind: 'copy' | 'move';
  entry: StorageEntry;
}

interface TransferValues {
  targetMountId: string;
  targetDir: string;
  name: string;
  overwrite: boolean;
  /** MiB/s; empty = unlimited. */
  limit: number | string;
}

const MiB = 1024 * 1024;

function toRequest(entry: StorageEntry, values: TransferValues): TransferRequest {
  const limit = typeof values.limit === 'number' ? Math.round(values.limit * MiB) : undefined;
  return {
    path: entry.path,
    targetMountId: values.targetMountId,
    targetPath: joinPath(values.targetDir, values.name.trim()),
    overwrite: values.overwrite,
    ...(limit !== undefined ? { maxBytesPerSecond: limit } : {}),
  };
}

/** Copy or move an entry to a folder of this or another mount, as a background transfer. */
export function TransferModal({
  mountId,
  action,
  onClose,
}: {
  mountId: string;
  action: TransferAction | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('storage');
  const target = useStorageTarget();
  const feed = useTransferFeed();
  const mounts = useStorageEndpointQuery(endpoints.storage.listMounts, {}, { enabled: Boolean(action) });
  const form = useForm<TransferValues>({
    mode: 'controlled',
    initialValues: { targetMountId: mountId, targetDir: '', name: '', overwrite: false, limit: '' },
    validate: (values) => {
      if (!action) return {};
      const errors = zodValidate(transferRequestSchema, (v: TransferValues) => toRequest(action.entry, v))(
        values,
      );
      const out: Record<string, string> = {};
      if (errors.targetPath) out.name = errors.targetPath;
      if (errors.maxBytesPerSecond) out.limit = errors.maxBytesPerSecond;
      if (errors.targetMountId) out.targetMountId = errors.targetMountId;
      if (!isPlainName(values.name)) out.name = t('files.badName');
      const request = toRequest(action.entry, values);
      if (values.targetMountId === mountId && isSameOrInside(request.targetPath, action.entry.path)) {
        out.targetDir = t('transfer.intoItself');
      }
      return out;
    },
  });
  const { setValues, clearErrors } = form;
  useEffect(() => {
    if (!action) return;
    setValues({
      targetMountId: mountId,
      targetDir: parentPath(action.entry.path),
      name: action.entry.name,
      overwrite: false,
      limit: '',
    });
    clearErrors();
  }, [action, mountId, setValues, clearErrors]);

  const start = useEndpointMutation(
    (call, variables: { kind: 'copy' | 'move'; body: TransferRequest }) =>
      call(variables.kind === 'copy' ? endpoints.storage.copy : endpoints.storage.move, {
        params: { mountId },
        body: variables.body,
        headers: target.headers,
      }),
    [endpoints.storage.listTransfers],
  );
  const close = () => {
    start.reset();
    onClose();
  };

  const mountOptions = (mounts.data?.mounts ?? []).map((mount) => ({ value: mount.id, label: mount.name }));
  const targetMountName =
    mounts.data?.mounts.find((mount) => mount.id === form.values.targetMountId)?.name ?? '';

  return (
    <Modal
      opened={action !== undefined}
      onClose={close}
      size="lg"
      title={
        action
          ? t(action.kind === 'copy' ? 'transfer.copyTitle' : 'transfer.moveTitle', {
              name: action.entry.name,
            })
          : ''
      }
    >
      <form
        noValidate
        data-testid="transfer-form"
        onSubmit={form.onSubmit((values) => {
          if (!action) return;
          start.mutate(
            { kind: action.kind, body: toRequest(action.entry, values) },
            {
              onSuccess: (transfer) => {
                feed.add([transfer]);
                notifications.show({ color: 'green', message: t('transfer.started') });
                close();
              },
            },
          );
        })}
      >
        <Stack gap="sm">
          <Select
            label={t('transfer.targetMount')}
            data={mountOptions}
            allowDeselect={false}
            data-testid="transfer-mount"
            {...form.getInputProps('targetMountId')}
            onChange={(value: string | null) => {
              form.setFieldValue('targetMountId', value ?? mountId);
              form.setFieldValue('targetDir', '');
            }}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('transfer.targetFolder')}
            </Text>
            {form.values.targetMountId && (
              <FolderPicker
                mountId={form.values.targetMountId}
                mountName={targetMountName}
                path={form.values.targetDir}
                onPathChange={(path) => form.setFieldValue('targetDir', path)}
              />
            )}
            {form.errors.targetDir && (
              <Text size="xs" c="red" role="alert">
                {form.errors.targetDir}
              </Text>
            )}
          </Stack>
          <TextInput label={t('transfer.name')} data-testid="transfer-name" {...form.getInputProps('name')} />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <NumberInput
              label={t('transfer.limit')}
              description={t('transfer.limitHint')}
              min={0.001}
              decimalScale={3}
              {...form.getInputProps('limit')}
            />
          </SimpleGrid>
          <Checkbox
            label={t('transfer.overwrite')}
            data-testid="transfer-overwrite"
            {...form.getInputProps('overwrite', { type: 'checkbox' })}
          />
          {mounts.isError && <ErrorAlert error={mounts.error} />}
          <FormActions
            mutation={start}
            form={form}
            onCancel={close}
            submitTestId="transfer-start"
            submitLabel={action?.kind === 'move' ? t('files.move') : t('files.copy')}
          />
        </Stack>
      </form>
    </Modal>
  );
}
