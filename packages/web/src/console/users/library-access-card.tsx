import { Alert, Paper, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { libraryAccessSchema, type LibraryAccess, type UserDetail, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { LibraryAccessFormBody, type LibraryChoices } from './library-access-form-body.js';
import {
  libraryAccessFormErrors,
  libraryAccessValuesFrom,
  toLibraryAccessBody,
  type LibraryAccessValues,
} from './library-access-form.js';
import { SaveRow } from './save-row.js';

/** Which libraries the user may browse and play: all of them, or the ones chosen (administrators: all). */
export function LibraryAccessForm({
  user,
  libraries,
  readOnly,
}: {
  user: UserDetail;
  libraries: LibraryChoices;
  readOnly: boolean;
}) {
  const { t } = useTranslation('users');
  const validate = zodValidate(libraryAccessSchema, toLibraryAccessBody);
  const form = useForm<LibraryAccessValues>({
    initialValues: libraryAccessValuesFrom(user.libraryAccess, libraries.ids),
    validate: (values) => libraryAccessFormErrors(validate(values)),
  });
  const save = useEndpointMutation(
    (call, body: LibraryAccess) =>
      call(endpoints.user.setUserLibraryAccess, { params: { id: user.id }, body }),
    [endpoints.user.listUsers],
  );

  return (
    <Paper withBorder p="md" radius="md">
      <form
        noValidate
        data-testid="user-library-access-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(toLibraryAccessBody(values), {
            onSuccess: (saved) => {
              form.resetDirty(libraryAccessValuesFrom(saved, libraries.ids));
              notifications.show({ color: 'green', message: t('libraryAccess.done') });
            },
          }),
        )}
      >
        <Stack>
          {user.role === 'admin' && (
            <Alert color="blue" variant="light" data-testid="library-access-admin">
              {t('libraryAccess.adminSeesAll')}
            </Alert>
          )}
          <LibraryAccessFormBody
            form={form}
            libraries={libraries}
            readOnly={readOnly}
            saveError={save.error}
            modeMessages="libraryAccess"
          />
          <SaveRow readOnly={readOnly} pending={save.isPending} testId="library-access-save" />
        </Stack>
      </form>
    </Paper>
  );
}
