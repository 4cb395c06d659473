import { useEffect, useEffectEvent, useState } from 'react';
import { Alert, Button, Group, Modal, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  ACTIVITY_RETENTION_SHORTCUTS,
  endpoints,
  setActivityRetentionRequestSchema,
  type ActivityRetentionResponse,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../../api/endpoint-hooks.js';
import { zodValidate } from '../../../forms/zod-form.js';
import { ErrorAlert } from '../../../shell/error-alert.js';
import { QueryState } from '../../../shell/query-state.js';
import { retentionBounds } from './retention-bounds.js';

/** Form error marker of a value outside the bounds, translated when shown (so it follows the language). */
const OUT_OF_RANGE = 'retention.outOfRange';

function RetentionForm({
  retention,
  onDirtyChange,
}: {
  retention: ActivityRetentionResponse;
  onDirtyChange?: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('reports');
  const bounds = retentionBounds(retention);
  const shortcuts = retention.shortcuts.length > 0 ? retention.shortcuts : [...ACTIVITY_RETENTION_SHORTCUTS];
  const [confirming, setConfirming] = useState<number | undefined>(undefined);
  const validateSchema = zodValidate(setActivityRetentionRequestSchema);
  const form = useForm<{ days: number | string }>({
    initialValues: { days: retention.days },
    validate: (values) => {
      const days = Number(values.days);
      if (!Number.isInteger(days) || days < bounds.min || days > bounds.max) {
        return { days: OUT_OF_RANGE };
      }
      return validateSchema({ days });
    },
  });
  // The answer in force is authoritative: show it again after a save or a refetch.
  const showInForce = useEffectEvent((days: number) => {
    form.setValues({ days });
    form.resetDirty({ days });
  });
  useEffect(() => showInForce(retention.days), [retention.days]);
  const dirty = form.isDirty();
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange?.(false), [onDirtyChange]);

  const save = useEndpointMutation(
    (call, days: number) => call(endpoints.user.setActivityRetention, { body: { days } }),
    [endpoints.user.getActivityRetention],
  );
  const submit = (days: number) => {
    setConfirming(undefined);
    save.mutate(days, {
      onSuccess: (answer) => {
        notifications.show({ color: 'teal', message: t('retention.saved', { days: answer.days }) });
      },
    });
  };

  return (
    <form
      data-testid="retention-form"
      onSubmit={form.onSubmit(({ days }) => {
        const value = Number(days);
        // Shortening deletes history at the next cleanup: ask first.
        if (value < retention.days) setConfirming(value);
        else submit(value);
      })}
    >
      <Stack gap="sm">
        <Text size="sm" data-testid="retention-in-force" data-value={retention.days}>
          {t('retention.inForce', { days: retention.days })}
        </Text>
        <Group gap="xs" role="group" aria-label={t('retention.shortcuts')}>
          {shortcuts.map((days) => (
            <Button
              key={days}
              size="xs"
              variant={Number(form.values.days) === days ? 'filled' : 'default'}
              aria-pressed={Number(form.values.days) === days}
              onClick={() => form.setFieldValue('days', days)}
              data-testid={`retention-shortcut-${days}`}
            >
              {t('retention.shortcut', { days })}
            </Button>
          ))}
        </Group>
        <Group align="flex-end" gap="sm">
          <NumberInput
            label={t('retention.days')}
            description={t('retention.description', {
              min: bounds.min,
              max: bounds.max,
              default: retention.default,
            })}
            min={bounds.min}
            max={bounds.max}
            step={1}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            data-testid="retention-days"
            w={{ base: '100%', sm: 320 }}
            {...form.getInputProps('days')}
            error={form.errors.days === OUT_OF_RANGE ? t('retention.outOfRange', bounds) : form.errors.days}
          />
          <Button type="submit" loading={save.isPending} data-testid="retention-save">
            {t('common:save')}
          </Button>
        </Group>
        {save.isError && <ErrorAlert error={save.error} form={form} />}
        <Alert color="blue" variant="light">
          <Text size="sm">{t('retention.note')}</Text>
        </Alert>
      </Stack>
      <Modal
        opened={confirming !== undefined}
        onClose={() => setConfirming(undefined)}
        title={t('retention.confirmTitle')}
        data-testid="retention-confirm"
      >
        <Text size="sm">{t('retention.confirmBody', { days: confirming })}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setConfirming(undefined)}>
            {t('common:cancel')}
          </Button>
          <Button
            color="red"
            onClick={() => confirming !== undefined && submit(confirming)}
            data-testid="retention-confirm-button"
          >
            {t('common:confirm')}
          </Button>
        </Group>
      </Modal>
    </form>
  );
}

/**
 * How long the activity log keeps playback events; applied by the next daily cleanup. `onDirtyChange` hears
 * whether the form holds an edit not saved yet (the settings page guards against losing it).
 */
export function RetentionCard({ onDirtyChange }: { onDirtyChange?: (dirty: boolean) => void } = {}) {
  const { t } = useTranslation('reports');
  const query = useEndpointQuery(endpoints.user.getActivityRetention, {});
  return (
    <Paper withBorder p="md" mb="md" data-testid="retention-card">
      <Title order={2} size="h4" mb="sm">
        {t('retention.title')}
      </Title>
      <QueryState query={query} skeletonRows={4}>
        {(retention) => <RetentionForm retention={retention} onDirtyChange={onDirtyChange} />}
      </QueryState>
    </Paper>
  );
}
