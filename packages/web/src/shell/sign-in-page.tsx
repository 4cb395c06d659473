import {
  Alert,
  Anchor,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery } from '@tanstack/react-query';
import { endpoints, type LoginRequest, loginRequestSchema, loginResponseSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { type ApiError } from '../api/client.js';
import { zodValidate } from '../forms/zod-form.js';
import { useSession } from '../session/session.js';
import { systemNameOf, useBranding, useDocumentBranding } from './branding.js';
import { ErrorAlert } from './error-alert.js';
import { HeaderControls } from './header-controls.js';
import { callEndpoint } from '../api/endpoint-client.js';

/** A centred card with the branding and the language/theme switches, for pages before sign-in. */
export function PublicFrame({ title, children }: { title: string; children: React.ReactNode }) {
  const branding = useBranding();
  useDocumentBranding(title);
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} component="main">
        <Stack gap="md">
          <Group justify="space-between" wrap="nowrap">
            <Group gap="xs" wrap="nowrap">
              {branding?.logoUrl && <img src={branding.logoUrl} alt="" width={32} height={32} />}
              <Title order={2} size="h3" data-testid="system-name">
                {systemNameOf(branding)}
              </Title>
            </Group>
            <HeaderControls />
          </Group>
          <Title order={1} size="h4">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}

export function SignInPage({ app }: { app: 'console' | 'portal' }) {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const setup = useQuery({
    queryKey: ['public', endpoints.user.getSetupStatus.path],
    queryFn: ({ signal }) => callEndpoint(undefined, endpoints.user.getSetupStatus, { signal }),
    enabled: app === 'console',
  });
  const form = useForm({
    mode: 'controlled',
    initialValues: { username: '', password: '' },
    validate: zodValidate(loginRequestSchema, (values: { username: string; password: string }) => ({
      ...values,
      client: app,
    })),
  });
  const login = useMutation<unknown, ApiError, LoginRequest>({
    mutationFn: (body) => callEndpoint(undefined, endpoints.user.login, { body }),
    onSuccess: (answer) => {
      session.signIn(loginResponseSchema.parse(answer));
      const next = params.get('next');
      void navigate(next?.startsWith(`/${app}`) ? next : `/${app}`, { replace: true });
    },
  });

  if (session.user) return <Navigate to={`/${app}`} replace />;
  if (app === 'console' && setup.data && !setup.data.adminExists) return <Navigate to="/setup" replace />;
  const justSetUp = (location.state as { setupDone?: boolean } | null)?.setupDone === true;

  return (
    <PublicFrame title={t(app === 'console' ? 'signIn.consoleTitle' : 'signIn.portalTitle')}>
      {justSetUp && <Alert color="green">{t('setup.done')}</Alert>}
      <form
        onSubmit={form.onSubmit((values) => login.mutate({ ...values, client: app }))}
        noValidate
        data-testid="sign-in-form"
      >
        <Stack gap="sm">
          <TextInput
            label={t('signIn.username')}
            autoComplete="username"
            autoFocus
            name="username"
            {...form.getInputProps('username')}
          />
          <PasswordInput
            label={t('signIn.password')}
            autoComplete="current-password"
            name="password"
            {...form.getInputProps('password')}
          />
          {login.isError && <ErrorAlert error={login.error} form={form} />}
          <Button type="submit" loading={login.isPending} fullWidth>
            {t('signIn.submit')}
          </Button>
          <Anchor
            component={Link}
            to={app === 'console' ? '/portal/login' : '/console/login'}
            size="sm"
            ta="center"
          >
            {t(app === 'console' ? 'openPortal' : 'openConsole')}
          </Anchor>
        </Stack>
      </form>
    </PublicFrame>
  );
}
