import { Button, Card, Group, Stack, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { activateLicenseRequestSchema, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

/** POST /api/license/activate with a one-time licence code. */
export function ActivateLicenseCard({ disabled }: { disabled: boolean }) {
  const { t } = useTranslation('license');
  const validate = zodValidate(activateLicenseRequestSchema);
  const form = useForm({
    initialValues: { code: '' },
    validate: (values) =>
      values.code.trim() === '' ? { code: t('common:validation.required') } : validate(values),
  });
  const activate = useEndpointMutation(
    (call, code: string) => call(endpoints.config.activateLicense, { body: { code } }),
    [{ service: 'config' }],
  );
  return (
    <Card withBorder padding="md">
      <Title order={2} size="h4" mb="xs">
        {t('activate.title')}
      </Title>
      <form
        noValidate
        data-testid="license-activate-form"
        onSubmit={form.onSubmit(({ code }) =>
          activate.mutate(code.trim(), {
            onSuccess: () => {
              notifications.show({ color: 'green', message: t('activate.done') });
              form.reset();
            },
          }),
        )}
      >
        <Stack gap="sm">
          <Textarea
            label={t('activate.code')}
            description={t('activate.codeHelp')}
            placeholder="svc-code.v1.…"
            autosize
            minRows={3}
            maxRows={8}
            required
            disabled={disabled}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
            {...form.getInputProps('code')}
            data-testid="license-code-input"
          />
          {activate.isError && <ErrorAlert error={activate.error} form={form} />}
          <Group justify="flex-end">
            <Button
              type="submit"
              loading={activate.isPending}
              disabled={disabled}
              data-testid="license-activate-submit"
            >
              {t('activate.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
