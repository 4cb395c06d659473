import { useEffect, useEffectEvent } from 'react';
import {
  Checkbox,
  Modal,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  createDriveAccountRequestSchema,
  DEFAULT_DRIVE_USER_AGENT,
  type DriveAccount,
  type DriveKind,
  type EndpointBodyInput,
  endpoints,
  MASKED_SECRET,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { useSession } from '../../session/session.js';
import {
  driveAccountToValues,
  emptyDriveAccountValues,
  toCreateDriveAccountRequest,
  toUpdateDriveAccountRequest,
  type DriveAccountFormValues,
} from './drive-account-form.js';
import { useStorageTarget } from './storage-query.js';
import { FormActions } from '../../shell/form-actions.js';

const KINDS: DriveKind[] = ['drive_a', 'drive_b'];

/** Add a drive account, or change one (`account` given). Stored secrets are shown only as stars. */
export function DriveAccountFormModal({
  opened,
  account,
  onClose,
}: {
  opened: boolean;
  account?: DriveAccount | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('storage');
  const { user } = useSession();
  const target = useStorageTarget();
  const isAdmin = user?.role === 'admin';
  const form = useForm<DriveAccountFormValues>({
    mode: 'controlled',
    initialValues: emptyDriveAccountValues('drive_a'),
    validate: zodValidate(createDriveAccountRequestSchema, toCreateDriveAccountRequest),
  });

  const show = useEffectEvent(() => {
    const values = account ? driveAccountToValues(account) : emptyDriveAccountValues('drive_a');
    form.setValues(values);
    form.resetDirty(values);
    form.clearErrors();
  });
  const accountId = account?.id;
  useEffect(() => {
    if (opened) show();
  }, [opened, accountId]);

  const save = useEndpointMutation(
    (call, values: DriveAccountFormValues) =>
      account
        ? call(endpoints.storage.updateDriveAccount, {
            params: { accountId: account.id },
            body: toUpdateDriveAccountRequest(values, account),
            headers: target.headers,
          })
        : call(endpoints.storage.createDriveAccount, {
            // Checked by the same schema on submit (zodValidate above).
            body: toCreateDriveAccountRequest(values) as EndpointBodyInput<
              typeof endpoints.storage.createDriveAccount
            >,
            headers: target.headers,
          }),
    [endpoints.storage.listDriveAccounts, endpoints.storage.listMounts],
  );

  const close = () => {
    save.reset();
    onClose();
  };
  const kind = form.values.kind;
  const secretPath = kind === 'drive_a' ? 'config.token' : 'config.accessToken';
  const secretInput = form.getInputProps('config.secret');
  const keptSecret = (value: string) =>
    account && value === MASKED_SECRET ? t('drives.secretStored') : undefined;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={account ? t('drives.editTitle') : t('drives.createTitle')}
      size="lg"
    >
      <form
        noValidate
        data-testid="drive-account-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(values, {
            onSuccess: () => {
              notifications.show({ color: 'green', message: t(account ? 'drives.saved' : 'drives.created') });
              close();
            },
          }),
        )}
      >
        <Stack gap="sm">
          <TextInput
            label={t('drives.name')}
            required
            data-autofocus
            data-testid="drive-account-name"
            {...form.getInputProps('name')}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="drive-account-kind-label">
              {t('drives.kind')}
            </Text>
            <SegmentedControl
              aria-labelledby="drive-account-kind-label"
              data={KINDS.map((value) => ({ value, label: t(`provider.${value}`) }))}
              value={kind}
              onChange={(value) => form.setFieldValue('kind', value)}
              disabled={Boolean(account)}
              data-testid="drive-account-kind"
            />
          </Stack>
          <TextInput
            label={t('drives.url')}
            description={t(kind === 'drive_a' ? 'drives.urlHintA' : 'drives.urlHintB')}
            placeholder="https://drive.example.com"
            required
            data-testid="drive-account-url"
            {...form.getInputProps('config.url')}
          />
          <PasswordInput
            label={t(kind === 'drive_a' ? 'drives.token' : 'drives.accessToken')}
            description={keptSecret(form.values.config.secret)}
            required
            autoComplete="new-password"
            data-testid="drive-account-secret"
            {...secretInput}
            error={form.errors['config.secret'] ?? form.errors[secretPath]}
          />
          {kind === 'drive_a' ? (
            <PasswordInput
              label={t('drives.folderPassword')}
              description={keptSecret(form.values.config.folderPassword) ?? t('drives.folderPasswordHint')}
              autoComplete="new-password"
              {...form.getInputProps('config.folderPassword')}
            />
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <TextInput
                label={t('drives.cdnHost')}
                description={t('drives.cdnHostHint')}
                placeholder="cdn.drive.example"
                required
                data-testid="drive-account-cdn-host"
                {...form.getInputProps('config.cdnHost')}
              />
              <Stack gap={4}>
                <Text size="sm" fw={500} id="drive-account-cdn-scheme-label">
                  {t('drives.cdnScheme')}
                </Text>
                <SegmentedControl
                  aria-labelledby="drive-account-cdn-scheme-label"
                  data={['https', 'http']}
                  value={form.values.config.cdnScheme}
                  onChange={(value) =>
                    form.setFieldValue('config.cdnScheme', value === 'http' ? 'http' : 'https')
                  }
                />
              </Stack>
            </SimpleGrid>
          )}
          <TextInput
            label={t('drives.userAgent')}
            description={t('drives.userAgentHint')}
            placeholder={DEFAULT_DRIVE_USER_AGENT}
            data-testid="drive-account-user-agent"
            {...form.getInputProps('config.userAgent')}
          />
          <NumberInput
            label={t('drives.timeoutSeconds')}
            min={1}
            max={600}
            allowDecimal={false}
            w={{ base: '100%', sm: 200 }}
            {...form.getInputProps('config.timeoutSeconds')}
          />
          <Checkbox
            label={t('mounts.allowPrivateNetwork')}
            description={t(isAdmin ? 'mounts.allowPrivateNetworkHint' : 'mounts.adminOnlyOption')}
            disabled={!isAdmin}
            data-testid="drive-account-private"
            {...form.getInputProps('config.allowPrivateNetwork', { type: 'checkbox' })}
          />
          <FormActions mutation={save} form={form} onCancel={close} submitTestId="drive-account-save" />
        </Stack>
      </form>
    </Modal>
  );
}
