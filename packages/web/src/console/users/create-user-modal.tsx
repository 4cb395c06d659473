import {
  Divider,
  Group,
  Modal,
  PasswordInput,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { createUserRequestSchema, type AccountRole, type CreateUserRequest, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { useSession } from '../../session/session.js';
import { PermissionCheckboxes, PlaybackFields } from './account-fields.js';
import { emptyCreateValues, passwordsDiffer, toCreateRequest, type CreateUserValues } from './user-form.js';
import { mayCreateAdministrators, permissionChoices } from './user-permissions.js';
import { FormActions } from '../../shell/form-actions.js';

const ROLES: AccountRole[] = ['user', 'admin'];

export function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('users');
  return (
    <Modal opened={opened} onClose={onClose} title={t('createModal.title')} size="lg">
      {opened && <CreateUserForm onClose={onClose} />}
    </Modal>
  );
}

function CreateUserForm({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('users');
  const { user: actor } = useSession();
  const offerRole = actor ? mayCreateAdministrators(actor) : false;
  const choices = actor ? permissionChoices(actor) : [];
  const validate = zodValidate(createUserRequestSchema, toCreateRequest);
  const form = useForm<CreateUserValues>({
    initialValues: emptyCreateValues(),
    validate: (values) => ({
      ...validate(values),
      ...(passwordsDiffer(values) ? { passwordRepeat: t('form.passwordMismatch') } : {}),
    }),
  });
  const create = useEndpointMutation(
    (call, body: CreateUserRequest) => call(endpoints.user.createUser, { body }),
    [endpoints.user.listUsers],
  );
  const admin = form.values.role === 'admin';

  return (
    <form
      noValidate
      data-testid="user-create-form"
      onSubmit={form.onSubmit((values) =>
        create.mutate(toCreateRequest(values), {
          onSuccess: (user) => {
            notifications.show({ color: 'green', message: t('createModal.done', { name: user.username }) });
            onClose();
          },
        }),
      )}
    >
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label={t('form.username')}
            description={t('form.usernameHelp')}
            required
            autoComplete="off"
            data-autofocus
            {...form.getInputProps('username')}
            data-testid="user-form-username"
          />
          <TextInput
            label={t('form.displayName')}
            description={t('form.displayNameHelp')}
            autoComplete="off"
            {...form.getInputProps('displayName')}
            data-testid="user-form-display-name"
          />
          <PasswordInput
            label={t('form.password')}
            description={t('form.passwordHelp')}
            required
            autoComplete="new-password"
            {...form.getInputProps('password')}
            data-testid="user-form-password"
          />
          <PasswordInput
            label={t('form.passwordRepeat')}
            required
            autoComplete="new-password"
            {...form.getInputProps('passwordRepeat')}
            data-testid="user-form-password-repeat"
          />
        </SimpleGrid>
        {offerRole && (
          <Radio.Group
            label={t('form.role')}
            description={t('form.roleHelp')}
            {...form.getInputProps('role')}
            data-testid="user-form-role"
          >
            <Group gap="lg" mt="xs">
              {ROLES.map((role) => (
                <Radio
                  key={role}
                  value={role}
                  label={t(`role.${role}`)}
                  data-testid={`user-form-role-${role}`}
                />
              ))}
            </Group>
          </Radio.Group>
        )}
        {!admin && (
          <PermissionCheckboxes
            choices={choices}
            value={form.values.permissions}
            onChange={(keys) => form.setFieldValue('permissions', keys)}
            error={form.errors.permissions as string | undefined}
          />
        )}
        <Divider />
        <PlaybackFields
          webPlayback={form.values.webPlayback}
          driveAPlayMode={form.values.driveAPlayMode}
          onWebPlayback={(value) => form.setFieldValue('webPlayback', value)}
          onDriveAPlayMode={(value) => form.setFieldValue('driveAPlayMode', value)}
        />
        <Text size="xs" c="dimmed">
          {t('createModal.defaultsHint')}
        </Text>
        <FormActions
          mutation={create}
          form={form}
          onCancel={onClose}
          submitTestId="user-create-submit"
          submitLabel={t('createModal.submit')}
        />
      </Stack>
    </form>
  );
}
