import { Alert, Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { updateUserRequestSchema, type ManagedUser, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { endpointPath } from '../../api/endpoint-client.js';
import { zodValidate } from '../../forms/zod-form.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { passwordsDiffer } from './user-form.js';
import { isOwnAccount } from './user-permissions.js';

export type UserAction = 'reset-password' | 'disable' | 'enable' | 'delete';

/** The dialog of one account action; nothing is changed before the user confirms it. */
export function UserActionModals({
  user,
  action,
  onClose,
  onDeleted,
}: {
  user: ManagedUser;
  action: UserAction;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('users');
  const title =
    action === 'reset-password'
      ? t('resetPassword.title', { name: user.username })
      : t(`confirm.${action}Title`, { name: user.username });
  return (
    <Modal opened onClose={onClose} title={title} data-testid="user-action-modal">
      {action === 'reset-password' ? (
        <ResetPasswordForm user={user} onClose={onClose} />
      ) : action === 'delete' ? (
        <DeleteBody user={user} onClose={onClose} onDeleted={onDeleted} />
      ) : (
        <DisableBody user={user} disable={action === 'disable'} onClose={onClose} />
      )}
    </Modal>
  );
}

function OwnAccountNotice({ user }: { user: ManagedUser }) {
  const { t } = useTranslation('users');
  const { user: actor } = useSession();
  if (!actor || !isOwnAccount(actor, user)) return null;
  return (
    <Alert color="yellow" data-testid="user-own-account">
      {t('confirm.ownAccount')}
    </Alert>
  );
}

function ConfirmButtons({
  label,
  color,
  loading,
  onConfirm,
  onClose,
}: {
  label: string;
  color: string;
  loading: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation('users');
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onClose}>
        {t('common:cancel')}
      </Button>
      <Button color={color} loading={loading} onClick={onConfirm} data-testid="user-action-confirm">
        {label}
      </Button>
    </Group>
  );
}

function DisableBody({
  user,
  disable,
  onClose,
}: {
  user: ManagedUser;
  disable: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('users');
  const key = disable ? 'disable' : 'enable';
  const change = useEndpointMutation(
    (call, disabled: boolean) =>
      call(endpoints.user.updateUser, { params: { id: user.id }, body: { disabled } }),
    [endpoints.user.listUsers],
  );
  return (
    <Stack>
      <Text size="sm">{t(`confirm.${key}Body`)}</Text>
      <OwnAccountNotice user={user} />
      {change.isError && <ErrorAlert error={change.error} />}
      <ConfirmButtons
        label={t(`confirm.${key}Confirm`)}
        color={disable ? 'red' : 'blue'}
        loading={change.isPending}
        onClose={onClose}
        onConfirm={() =>
          change.mutate(disable, {
            onSuccess: () => {
              notifications.show({
                color: 'green',
                message: t(`confirm.${key}Done`, { name: user.username }),
              });
              onClose();
            },
          })
        }
      />
    </Stack>
  );
}

function DeleteBody({
  user,
  onClose,
  onDeleted,
}: {
  user: ManagedUser;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('users');
  const queryClient = useQueryClient();
  const remove = useEndpointMutation((call, id: string) =>
    call(endpoints.user.deleteUser, { params: { id } }),
  );
  const confirm = () =>
    remove.mutate(user.id, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('confirm.deleteDone', { name: user.username }) });
        onClose();
        onDeleted?.();
        // Only the list is fetched again: the deleted user's own queries would answer 404 (they are left to expire).
        void queryClient.invalidateQueries({
          predicate: (query) => query.queryKey[1] === endpointPath(endpoints.user.listUsers),
        });
      },
    });
  return (
    <Stack>
      <Text size="sm">{t('confirm.deleteBody')}</Text>
      <OwnAccountNotice user={user} />
      {remove.isError && <ErrorAlert error={remove.error} />}
      <ConfirmButtons
        label={t('confirm.deleteConfirm')}
        color="red"
        loading={remove.isPending}
        onClose={onClose}
        onConfirm={confirm}
      />
    </Stack>
  );
}

interface PasswordValues {
  password: string;
  passwordRepeat: string;
}

function ResetPasswordForm({ user, onClose }: { user: ManagedUser; onClose: () => void }) {
  const { t } = useTranslation('users');
  const { user: actor } = useSession();
  const own = actor ? isOwnAccount(actor, user) : false;
  const validate = zodValidate(updateUserRequestSchema, (values: PasswordValues) => ({
    password: values.password,
  }));
  const form = useForm<PasswordValues>({
    initialValues: { password: '', passwordRepeat: '' },
    validate: (values) => ({
      ...validate(values),
      ...(passwordsDiffer(values) ? { passwordRepeat: t('form.passwordMismatch') } : {}),
    }),
  });
  const reset = useEndpointMutation(
    (call, password: string) =>
      call(endpoints.user.updateUser, { params: { id: user.id }, body: { password } }),
    [endpoints.user.listUsers],
  );
  return (
    <form
      noValidate
      data-testid="user-reset-password-form"
      onSubmit={form.onSubmit((values) =>
        reset.mutate(values.password, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('resetPassword.done', { name: user.username }) });
            onClose();
          },
        }),
      )}
    >
      <Stack>
        <Text size="sm">{own ? t('resetPassword.ownHint') : t('resetPassword.hint')}</Text>
        <PasswordInput
          label={t('form.password')}
          description={t('form.passwordHelp')}
          autoComplete="new-password"
          required
          data-autofocus
          {...form.getInputProps('password')}
          data-testid="user-reset-password-input"
        />
        <PasswordInput
          label={t('form.passwordRepeat')}
          autoComplete="new-password"
          required
          {...form.getInputProps('passwordRepeat')}
          data-testid="user-reset-password-repeat"
        />
        {reset.isError && <ErrorAlert error={reset.error} form={form} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common:cancel')}
          </Button>
          <Button type="submit" loading={reset.isPending} data-testid="user-reset-password-submit">
            {t('resetPassword.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
