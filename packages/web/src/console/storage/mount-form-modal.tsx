import { useEffect, useEffectEvent } from 'react';
import {
  Checkbox,
  Modal,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  SimpleGrid,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  createMountRequestSchema,
  type EndpointBodyInput,
  endpoints,
  MASKED_SECRET,
  type DriveAccount,
  type Mount,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import {
  emptyMountValues,
  isDriveKind,
  mountToValues,
  toCreateMountRequest,
  toUpdateMountRequest,
  type MountFormValues,
} from './mount-form.js';
import { useStorageEndpointQuery, useStorageTarget } from './storage-query.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { FormActions } from '../../shell/form-actions.js';

/** Create a mount, or change one (`mount` given): name and provider settings, validated like the API. */
export function MountFormModal({
  opened,
  mount,
  onClose,
}: {
  opened: boolean;
  mount?: Mount | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('storage');
  const { user } = useSession();
  const target = useStorageTarget();
  const isAdmin = user?.role === 'admin';
  const providers = useStorageEndpointQuery(endpoints.storage.listProviders, {}, { enabled: opened });
  const accounts = useStorageEndpointQuery(endpoints.storage.listDriveAccounts, {}, { enabled: opened });
  const schemaErrors = zodValidate(createMountRequestSchema, toCreateMountRequest);
  const form = useForm<MountFormValues>({
    mode: 'controlled',
    initialValues: emptyMountValues('local'),
    validate: (values) =>
      isDriveKind(values.provider) && !values.config.accountId
        ? { ...schemaErrors(values), 'config.accountId': t('drives.accountHint') }
        : schemaErrors(values),
  });

  const showMount = useEffectEvent(() => {
    const values = mount ? mountToValues(mount) : emptyMountValues(isAdmin ? 'local' : 'webdav');
    form.setValues(values);
    form.resetDirty(values);
    form.clearErrors();
  });
  // Only when the dialog opens or shows another mount.
  const mountId = mount?.id;
  useEffect(() => {
    if (opened) showMount();
  }, [opened, mountId]);

  const save = useEndpointMutation(
    (call, values: MountFormValues) =>
      mount
        ? call(endpoints.storage.updateMount, {
            params: { mountId: mount.id },
            body: toUpdateMountRequest(values, mount),
            headers: target.headers,
          })
        : call(endpoints.storage.createMount, {
            // The form's provider config is checked by the same schema on submit (zodValidate above).
            body: toCreateMountRequest(values) as EndpointBodyInput<typeof endpoints.storage.createMount>,
            headers: target.headers,
          }),
    [endpoints.storage.listMounts],
  );

  const close = () => {
    save.reset();
    onClose();
  };

  const secrets = new Set(
    providers.data?.providers.find((provider) => provider.kind === form.values.provider)?.secrets ?? [
      'password',
    ],
  );
  const providerOptions = (providers.data?.providers ?? [])
    .map((provider) => ({
      value: provider.kind,
      label: t(`provider.${provider.kind}`),
      disabled: provider.adminOnly && !isAdmin,
    }))
    .filter((option) => !mount || option.value === mount.provider);
  const adminOnlyHint = (providers.data?.providers ?? []).some((provider) => provider.adminOnly) && !isAdmin;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={mount ? t('mounts.editTitle') : t('mounts.createTitle')}
      size="lg"
    >
      <form
        noValidate
        data-testid="mount-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(values, {
            onSuccess: () => {
              notifications.show({ color: 'green', message: t(mount ? 'mounts.saved' : 'mounts.created') });
              close();
            },
          }),
        )}
      >
        <Stack gap="sm">
          <TextInput
            label={t('mounts.name')}
            required
            data-autofocus
            data-testid="mount-name"
            {...form.getInputProps('name')}
          />
          {providerOptions.length > 0 && (
            <Stack gap={4}>
              <Text size="sm" fw={500} id="mount-provider-label">
                {t('mounts.provider')}
              </Text>
              <SegmentedControl
                aria-labelledby="mount-provider-label"
                data={providerOptions}
                value={form.values.provider}
                onChange={(value) => form.setFieldValue('provider', value)}
                disabled={Boolean(mount)}
                data-testid="mount-provider"
              />
              {adminOnlyHint && (
                <Text size="xs" c="dimmed">
                  {t('mounts.adminOnly')}
                </Text>
              )}
            </Stack>
          )}
          {isDriveKind(form.values.provider) ? (
            <DriveMountFields
              kind={form.values.provider}
              accounts={(accounts.data?.accounts ?? []).filter(
                (account) => account.kind === form.values.provider,
              )}
              accountProps={form.getInputProps('config.accountId')}
              rootProps={form.getInputProps(
                form.values.provider === 'drive_a' ? 'config.root' : 'config.rootId',
              )}
            />
          ) : form.values.provider === 'local' ? (
            <TextInput
              label={t('mounts.root')}
              description={t('mounts.rootHint')}
              placeholder="/srv/media"
              required
              data-testid="mount-root"
              {...form.getInputProps('config.root')}
            />
          ) : (
            <>
              <TextInput
                label={t('mounts.url')}
                description={t('mounts.urlHint')}
                placeholder="https://nas.example.com/dav/media"
                required
                data-testid="mount-url"
                {...form.getInputProps('config.url')}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput
                  label={t('mounts.username')}
                  autoComplete="off"
                  {...form.getInputProps('config.username')}
                />
                {secrets.has('password') && (
                  <PasswordInput
                    label={t('mounts.password')}
                    description={
                      mount && form.values.config.password === MASKED_SECRET
                        ? t('mounts.keepSecret')
                        : undefined
                    }
                    autoComplete="new-password"
                    {...form.getInputProps('config.password')}
                  />
                )}
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <NumberInput
                  label={t('mounts.timeoutSeconds')}
                  min={1}
                  max={600}
                  allowDecimal={false}
                  {...form.getInputProps('config.timeoutSeconds')}
                />
                <NumberInput
                  label={t('mounts.downloadThreads')}
                  min={1}
                  max={32}
                  allowDecimal={false}
                  {...form.getInputProps('config.downloadThreads')}
                />
              </SimpleGrid>
              <Checkbox
                label={t('mounts.allowPrivateNetwork')}
                description={t(isAdmin ? 'mounts.allowPrivateNetworkHint' : 'mounts.adminOnlyOption')}
                disabled={!isAdmin}
                {...form.getInputProps('config.allowPrivateNetwork', { type: 'checkbox' })}
              />
            </>
          )}
          {providers.isError && <ErrorAlert error={providers.error} />}
          {accounts.isError && <ErrorAlert error={accounts.error} />}
          <FormActions mutation={save} form={form} onCancel={close} submitTestId="mount-save" />
        </Stack>
      </form>
    </Modal>
  );
}

/** A drive mount's own fields: the drive account it names and the folder of the drive that is its root. */
function DriveMountFields({
  kind,
  accounts,
  accountProps,
  rootProps,
}: {
  kind: 'drive_a' | 'drive_b';
  accounts: DriveAccount[];
  accountProps: ReturnType<ReturnType<typeof useForm<MountFormValues>>['getInputProps']>;
  rootProps: ReturnType<ReturnType<typeof useForm<MountFormValues>>['getInputProps']>;
}) {
  const { t } = useTranslation('storage');
  return (
    <>
      <Select
        label={t('drives.account')}
        description={accounts.length === 0 ? t('drives.noAccounts') : t('drives.accountHint')}
        data={accounts.map((account) => ({ value: account.id, label: account.name }))}
        required
        allowDeselect={false}
        data-testid="mount-drive-account"
        {...accountProps}
        value={typeof accountProps.value === 'string' && accountProps.value ? accountProps.value : null}
      />
      <TextInput
        label={t(kind === 'drive_a' ? 'drives.rootA' : 'drives.rootB')}
        description={t(kind === 'drive_a' ? 'drives.rootAHint' : 'drives.rootBHint')}
        placeholder={kind === 'drive_a' ? '/' : 'root'}
        data-testid="mount-drive-root"
        {...rootProps}
      />
    </>
  );
}
