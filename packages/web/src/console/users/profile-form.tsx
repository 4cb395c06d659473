import { Paper, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { updateUserRequestSchema, type ManagedUser, type UpdateUserRequest, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { PlaybackFields } from './account-fields.js';
import { hasChanges, profileValuesFrom, toProfileChanges, type ProfileValues } from './user-form.js';
import { SaveRow } from './save-row.js';
import { isOwnAccount } from './user-permissions.js';

/** Display name, web playback switch and DRIVE_A play mode; only what changed is sent. */
export function ProfileForm({ user, readOnly }: { user: ManagedUser; readOnly: boolean }) {
  const { t } = useTranslation('users');
  const session = useSession();
  const validate = zodValidate(updateUserRequestSchema, (values: ProfileValues) =>
    toProfileChanges(user, values),
  );
  const form = useForm<ProfileValues>({
    initialValues: profileValuesFrom(user),
    validate: (values) => {
      // "nothing to change" (an empty body) is not a field problem: the save button is off then.
      const { '': _nothing, ...errors } = validate(values);
      return errors;
    },
  });
  const save = useEndpointMutation(
    (call, body: UpdateUserRequest) => call(endpoints.user.updateUser, { params: { id: user.id }, body }),
    [endpoints.user.listUsers],
  );
  const changes = toProfileChanges(user, form.values);

  return (
    <Paper withBorder p="md" radius="md">
      <form
        noValidate
        data-testid="user-profile-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(toProfileChanges(user, values), {
            onSuccess: (saved) => {
              notifications.show({ color: 'green', message: t('profile.done') });
              form.setValues(profileValuesFrom(saved));
              form.resetDirty(profileValuesFrom(saved));
              const own = session.user;
              if (own && isOwnAccount(own, saved)) {
                session.updateUser({
                  ...own,
                  displayName: saved.displayName,
                  webPlayback: saved.webPlayback,
                  driveAPlayMode: saved.driveAPlayMode,
                  updatedAt: saved.updatedAt,
                });
              }
            },
          }),
        )}
      >
        <Stack>
          <TextInput
            label={t('form.displayName')}
            description={t('form.displayNameHelp')}
            readOnly={readOnly}
            maw={480}
            {...form.getInputProps('displayName')}
            data-testid="user-form-display-name"
          />
          <PlaybackFields
            webPlayback={form.values.webPlayback}
            driveAPlayMode={form.values.driveAPlayMode}
            onWebPlayback={(value) => form.setFieldValue('webPlayback', value)}
            onDriveAPlayMode={(value) => form.setFieldValue('driveAPlayMode', value)}
            disabled={readOnly}
          />
          {save.isError && <ErrorAlert error={save.error} form={form} />}
          <SaveRow
            readOnly={readOnly}
            pending={save.isPending}
            disabled={!hasChanges(changes)}
            testId="user-profile-save"
          />
        </Stack>
      </form>
    </Paper>
  );
}
