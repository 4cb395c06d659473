import { ActionIcon, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * Mantine's CopyButton as an icon button. Without a value (a secret not fetched yet) it is disabled
 * and its tooltip says why.
 */
export function CopyIconButton({
  value,
  label,
  disabledHint,
  testId,
}: {
  value: string | null;
  label: string;
  disabledHint: string;
  testId: string;
}) {
  const { t } = useTranslation();
  if (value === null) {
    return (
      <Tooltip label={disabledHint}>
        <ActionIcon variant="subtle" color="gray" aria-label={label} data-disabled data-testid={testId}>
          <IconCopy size={16} />
        </ActionIcon>
      </Tooltip>
    );
  }
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('copied') : label}>
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            aria-label={label}
            onClick={copy}
            data-testid={testId}
            data-copied={copied || undefined}
          >
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}
