import { ActionIcon, Tooltip } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

interface RowActionProps {
  /** Names the row for screen readers, e.g. "Edit Films". */
  ariaLabel: string;
  onClick: () => void;
  testId: string;
}

/** The pencil button of a table row, with the "Edit" tooltip. */
export function EditIconButton({ ariaLabel, onClick, testId }: RowActionProps) {
  const { t } = useTranslation();
  return (
    <Tooltip label={t('common:edit')}>
      <ActionIcon variant="subtle" onClick={onClick} aria-label={ariaLabel} data-testid={testId}>
        <IconPencil size={18} />
      </ActionIcon>
    </Tooltip>
  );
}

/** The red bin button of a table row, with the "Delete" tooltip. */
export function DeleteIconButton({ ariaLabel, onClick, testId }: RowActionProps) {
  const { t } = useTranslation();
  return (
    <Tooltip label={t('common:delete')}>
      <ActionIcon variant="subtle" color="red" onClick={onClick} aria-label={ariaLabel} data-testid={testId}>
        <IconTrash size={18} />
      </ActionIcon>
    </Tooltip>
  );
}
