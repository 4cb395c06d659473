import type { ReactNode } from 'react';
import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, type FieldErrorTarget } from './error-alert.js';

/**
 * The end of a dialog's form: the refusal of its last submission (with the form, field problems land on
 * the fields), then Cancel and the submit button.
 */
export function FormActions({
  mutation,
  form,
  onCancel,
  submitTestId,
  submitLabel,
  submitDisabled = false,
}: {
  mutation: { isError: boolean; error: unknown; isPending: boolean };
  form?: FieldErrorTarget;
  onCancel: () => void;
  submitTestId: string;
  /** Defaults to "Save". */
  submitLabel?: ReactNode;
  submitDisabled?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <>
      {mutation.isError && <ErrorAlert error={mutation.error} form={form} />}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onCancel}>
          {t('common:cancel')}
        </Button>
        <Button
          type="submit"
          loading={mutation.isPending}
          disabled={submitDisabled}
          data-testid={submitTestId}
        >
          {submitLabel ?? t('common:save')}
        </Button>
      </Group>
    </>
  );
}
