import { Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery } from '@tanstack/react-query';
import { endpoints, type SetupAdminRequest, setupAdminRequestSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate } from 'react-router';
import { type ApiError } from '../api/client.js';
import { zodValidate } from '../forms/zod-form.js';
import { ErrorAlert } from './error-alert.js';
import { PageSkeleton } from './app-layout.js';
import { PublicFrame } from './sign-in-page.js';
import { callEndpoint } from '../api/endpoint-client.js';

interface SetupValues {
  username: string;
  displayName: string;
  password: string;
  passwordRepeat: string;
}

const toRequest = (values: SetupValues): SetupAdminRequest => ({
  username: values.username,
  password: values.password,
  ...(values.displayName.trim() ? { displayName: values.displayName } : {}),
});

/** First run: creates the first administrator, then sends the visitor to the console sign-in. */
export function SetupPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const status = useQuery({
    queryKey: ['public', endpoints.user.getSetupStatus.path],
    queryFn: ({ signal }) => callEndpoint(undefined, endpoints.user.getSetupStatus, { signal }),
  });
  const form = useForm<SetupValues>({
    mode: 'controlled',
    initialValues: { username: '', displayName: '', password: '', passwordRepeat: '' },
    validate: (values) => {
      const errors = zodValidate(setupAdminRequestSchema, toRequest)(values);
      if (values.password !== values.passwordRepeat) errors.passwordRepeat = t('setup.mismatch');
      return errors;
    },
  });
  const create = useMutation<unknown, ApiError, SetupAdminRequest>({
    mutationFn: (body) => callEndpoint(undefined, endpoints.user.createFirstAdmin, { body }),
    onSuccess: () => void navigate('/console/login', { replace: true, state: { setupDone: true } }),
  });

  if (status.data?.adminExists) return <Navigate to="/console/login" replace />;
  return (
    <PublicFrame title={t('setup.title')}>
      {status.isPending ? (
        <PageSkeleton />
      ) : (
        <form
          onSubmit={form.onSubmit((values) => create.mutate(toRequest(values)))}
          noValidate
          data-testid="setup-form"
        >
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              {t('setup.intro')}
            </Text>
            <TextInput
              label={t('signIn.username')}
              name="username"
              autoComplete="username"
              autoFocus
              {...form.getInputProps('username')}
            />
            <TextInput
              label={t('setup.displayName')}
              name="displayName"
              {...form.getInputProps('displayName')}
            />
            <PasswordInput
              label={t('signIn.password')}
              name="password"
              autoComplete="new-password"
              {...form.getInputProps('password')}
            />
            <PasswordInput
              label={t('setup.passwordRepeat')}
              name="passwordRepeat"
              autoComplete="new-password"
              {...form.getInputProps('passwordRepeat')}
            />
            {create.isError && <ErrorAlert error={create.error} form={form} />}
            <Button type="submit" loading={create.isPending} fullWidth>
              {t('setup.submit')}
            </Button>
          </Stack>
        </form>
      )}
    </PublicFrame>
  );
}
