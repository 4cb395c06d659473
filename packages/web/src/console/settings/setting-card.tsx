import type { ReactNode } from 'react';
import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconClockHour4, IconPencil } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, type FieldErrorTarget } from '../../shell/error-alert.js';

/** When a setting takes effect, as the spec's scope list names it. */
export type SettingScope =
  'immediate' | 'newUsers' | 'nextCleanup' | 'policyRefresh' | 'withinSeconds' | 'atOnce';

/** The "unsaved changes" marker of a card. */
export function UnsavedBadge({ testId }: { testId: string }) {
  const { t } = useTranslation('settings');
  return (
    <Badge color="orange" variant="light" leftSection={<IconPencil size={12} />} data-testid={testId}>
      {t('unsaved')}
    </Badge>
  );
}

/** The line saying when a card's setting takes effect. */
export function TakesEffect({ scope, testId }: { scope: SettingScope; testId: string }) {
  const { t } = useTranslation('settings');
  return (
    <Group gap={6} wrap="nowrap" align="flex-start">
      <IconClockHour4 size={16} style={{ flexShrink: 0, marginTop: 2 }} aria-hidden />
      <Text size="sm" c="dimmed" data-testid={testId}>
        {t('takesEffect', { when: t(`scope.${scope}`) })}
      </Text>
    </Group>
  );
}

/** One card of the settings page: title, unsaved-changes marker, when the setting takes effect, its form. */
export function SettingCard({
  id,
  title,
  help,
  scope,
  dirty = false,
  children,
}: {
  id: string;
  title: string;
  /** What the setting does (shown while its value loads too). */
  help?: string;
  scope: SettingScope;
  dirty?: boolean;
  children: ReactNode;
}) {
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="section"
      aria-labelledby={`${id}-title`}
      data-testid={`card-${id}`}
      data-dirty={dirty}
    >
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Title order={2} size="h4" id={`${id}-title`}>
            {title}
          </Title>
          {dirty && <UnsavedBadge testId={`${id}-unsaved`} />}
        </Group>
        {help && <Text size="sm">{help}</Text>}
        <TakesEffect scope={scope} testId={`${id}-scope`} />
        {children}
      </Stack>
    </Paper>
  );
}

/**
 * The last save's error, if any, then reset (discard the edits) and save of one card; both buttons do
 * nothing while the card is unchanged.
 */
export function CardActions({
  id,
  dirty,
  saving,
  onReset,
  canSave = dirty,
  error = null,
  form,
}: {
  id: string;
  dirty: boolean;
  saving: boolean;
  onReset: () => void;
  /** Whether the edits can be saved now (e.g. not while an image is still uploading). */
  canSave?: boolean;
  /** The last save's error (null when none). */
  error?: unknown;
  /** The card's form, to show the error's field problems on its fields. */
  form?: FieldErrorTarget;
}) {
  const { t } = useTranslation('settings');
  return (
    <>
      {error ? <ErrorAlert error={error} {...(form ? { form } : {})} /> : null}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onReset} disabled={!dirty || saving} data-testid={`${id}-reset`}>
          {t('reset')}
        </Button>
        <Button type="submit" loading={saving} disabled={!canSave} data-testid={`${id}-save`}>
          {t('common:save')}
        </Button>
      </Group>
    </>
  );
}
