import { ActionIcon, CopyButton, TextInput, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** A read-only address with a copy button. */
export function CopyableAddress({
  label,
  description,
  value,
  testId,
}: {
  label: string;
  description?: string;
  value: string;
  testId: string;
}) {
  const { t } = useTranslation('settings');
  return (
    <TextInput
      label={label}
      description={description}
      value={value}
      readOnly
      data-testid={testId}
      rightSection={
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? t('copied') : t('copy')} withArrow>
              <ActionIcon
                variant="subtle"
                color={copied ? 'teal' : 'gray'}
                onClick={copy}
                aria-label={`${t('copy')}: ${label}`}
                data-testid={`${testId}-copy`}
              >
                {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      }
    />
  );
}
