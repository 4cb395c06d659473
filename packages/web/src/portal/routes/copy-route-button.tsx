import { useEffect, useState } from 'react';
import { ActionIcon, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { copyText } from './copy-text.js';

/** Copies a route address; the icon turns into a check for a moment, a failure says so in a toast. */
export function CopyRouteButton({ url, name }: { url: string; name: string }) {
  const { t } = useTranslation('myRoutes');
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    if (await copyText(url)) {
      setCopied(true);
      notifications.show({ color: 'green', message: t('common:copied') });
    } else {
      notifications.show({ color: 'red', message: t('copyFailed') });
    }
  };

  return (
    <Tooltip label={copied ? t('common:copied') : t('common:copy')} withArrow>
      <ActionIcon
        variant="light"
        color={copied ? 'teal' : 'blue'}
        onClick={() => void copy()}
        aria-label={t('copyLabel', { name })}
        data-testid="copy-route"
      >
        {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
      </ActionIcon>
    </Tooltip>
  );
}
