import { useState } from 'react';
import { Alert, Paper, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type DelegablePermission, type ManagedUser, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { PermissionCheckboxes } from './account-fields.js';
import { SaveRow } from './save-row.js';
import {
  hasEditablePermissions,
  normalizePermissions,
  permissionChoices,
  samePermissions,
} from './user-permissions.js';

/** The delegable menu permissions of an ordinary user (administrators hold every key: nothing to edit). */
export function PermissionsForm({ user, readOnly }: { user: ManagedUser; readOnly: boolean }) {
  const { t } = useTranslation('users');
  const { user: actor } = useSession();
  const [permissions, setPermissions] = useState<DelegablePermission[]>(user.permissions);
  const save = useEndpointMutation(
    (call, keys: DelegablePermission[]) =>
      call(endpoints.user.setUserPermissions, { params: { id: user.id }, body: { permissions: keys } }),
    [endpoints.user.listUsers],
  );

  if (!hasEditablePermissions(user)) {
    return (
      <Alert color="blue" data-testid="user-permissions-admin">
        {t('permissions.adminHoldsAll')}
      </Alert>
    );
  }
  const choices = actor ? permissionChoices(actor, user.permissions) : [];
  return (
    <Paper withBorder p="md" radius="md">
      <form
        noValidate
        data-testid="user-permissions-form"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(normalizePermissions(permissions), {
            onSuccess: (saved) => {
              setPermissions(saved.permissions);
              notifications.show({ color: 'green', message: t('permissions.done') });
            },
          });
        }}
      >
        <Stack>
          <PermissionCheckboxes
            choices={choices}
            value={permissions}
            onChange={setPermissions}
            readOnly={readOnly}
          />
          {save.isError && <ErrorAlert error={save.error} />}
          <SaveRow
            readOnly={readOnly}
            pending={save.isPending}
            disabled={samePermissions(permissions, user.permissions)}
            testId="user-permissions-save"
          />
        </Stack>
      </form>
    </Paper>
  );
}
