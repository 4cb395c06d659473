import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A user form's save button at its right edge; a read-only form has none. */
export function SaveRow({
  readOnly,
  pending,
  disabled = false,
  testId,
}: {
  readOnly: boolean;
  pending: boolean;
  disabled?: boolean;
  testId: string;
}) {
  const { t } = useTranslation('users');
  if (readOnly) return null;
  return (
    <Group justify="flex-end">
      <Button type="submit" loading={pending} disabled={disabled} data-testid={testId}>
        {t('common:save')}
      </Button>
    </Group>
  );
}
