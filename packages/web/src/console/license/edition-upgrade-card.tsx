import { useState } from 'react';
import { Alert, Button, Card, Group, Modal, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import {
  editionUpgradeRequestSchema,
  endpoints,
  licenseIdParamsSchema,
  type LicenseStatusResponse,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { upgradeAvailability } from './license-status.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

/** The form's fields: the licence id of the path and the body's lease, checked by the contracts' schemas. */
const upgradeFormSchema = editionUpgradeRequestSchema.extend({ licenseId: licenseIdParamsSchema.shape.id });
type UpgradeValues = { licenseId: string; lease: string };

/** STANDALONE → DISTRIBUTED with a publisher-signed edition-upgrade lease, behind a confirmation. */
export function EditionUpgradeCard({ status }: { status: LicenseStatusResponse }) {
  const { t } = useTranslation('license');
  const availability = upgradeAvailability(status);
  return (
    <Card withBorder padding="md" data-testid="edition-upgrade-card" data-availability={availability}>
      <Title order={2} size="h4" mb="xs">
        {t('upgrade.title')}
      </Title>
      {availability === 'distributed' ? (
        <Text size="sm">{t('upgrade.distributed')}</Text>
      ) : (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {t('upgrade.intro')}
          </Text>
          {availability === 'no-key' && <Alert color="yellow">{t('upgrade.noKey')}</Alert>}
          {availability === 'no-licence' && <Alert color="yellow">{t('upgrade.noLicence')}</Alert>}
          <UpgradeForm
            key={status.licenseId ?? 'none'}
            licenseId={status.licenseId ?? ''}
            disabled={availability !== 'available'}
          />
        </Stack>
      )}
    </Card>
  );
}

function UpgradeForm({ licenseId, disabled }: { licenseId: string; disabled: boolean }) {
  const { t } = useTranslation('license');
  const [confirming, setConfirming] = useState<UpgradeValues | null>(null);
  const validate = zodValidate(upgradeFormSchema);
  const form = useForm<UpgradeValues>({
    initialValues: { licenseId, lease: '' },
    validate: (values) => {
      const errors = validate(values);
      for (const field of ['licenseId', 'lease'] as const) {
        if (errors[field] && values[field].trim() === '') errors[field] = t('common:validation.required');
      }
      return errors;
    },
  });
  const upgrade = useEndpointMutation(
    (call, values: UpgradeValues) =>
      call(endpoints.config.upgradeLicenseEdition, {
        params: { id: values.licenseId.trim() },
        body: { lease: values.lease.trim() },
      }),
    [{ service: 'config' }],
  );

  return (
    <>
      <form
        noValidate
        data-testid="edition-upgrade-form"
        onSubmit={form.onSubmit((values) => setConfirming(values))}
      >
        <Stack gap="sm">
          <TextInput
            label={t('upgrade.licenseId')}
            description={t('upgrade.licenseIdHelp')}
            required
            disabled={disabled}
            {...form.getInputProps('licenseId')}
            data-testid="edition-upgrade-license-id"
          />
          <Textarea
            label={t('upgrade.lease')}
            description={t('upgrade.leaseHelp')}
            placeholder="svc-lease.v1.…"
            autosize
            minRows={3}
            maxRows={8}
            required
            disabled={disabled}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
            {...form.getInputProps('lease')}
            data-testid="edition-upgrade-lease"
          />
          {upgrade.isError && !confirming && <ErrorAlert error={upgrade.error} form={form} />}
          <Group justify="flex-end">
            <Button type="submit" color="orange" disabled={disabled} data-testid="edition-upgrade-submit">
              {t('upgrade.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={t('upgrade.confirmTitle')}
        data-testid="edition-upgrade-modal"
      >
        <Stack>
          <Alert color="orange" icon={<IconAlertTriangle size={18} />}>
            {t('upgrade.confirmBody', { licenseId: confirming?.licenseId.trim() ?? '' })}
          </Alert>
          {upgrade.isError && <ErrorAlert error={upgrade.error} form={form} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(null)}>
              {t('common:cancel')}
            </Button>
            <Button
              color="orange"
              loading={upgrade.isPending}
              data-testid="edition-upgrade-confirm"
              onClick={() => {
                if (!confirming) return;
                upgrade.mutate(confirming, {
                  onSuccess: () => {
                    notifications.show({ color: 'green', message: t('upgrade.done') });
                    setConfirming(null);
                    form.reset();
                  },
                });
              }}
            >
              {t('upgrade.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
