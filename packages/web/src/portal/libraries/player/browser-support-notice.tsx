import { Alert, Button, Text } from '@mantine/core';
import { IconDownload, IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { BrowserSupport } from '../playback/browser-support.js';

/** Said before playing: this browser will not play the file as it is (the play-agent never transcodes). */
export function BrowserSupportNotice({
  support,
  downloadUrl,
}: {
  support: BrowserSupport;
  downloadUrl: string;
}) {
  const { t } = useTranslation('myLibraries');
  const parts = [
    support.container && t('notBrowserPlayableContainer', { name: support.container }),
    support.video && t('notBrowserPlayableVideo', { name: support.video }),
    support.audio && t('notBrowserPlayableAudio', { name: support.audio }),
  ].filter(Boolean);
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      data-testid="web-player-unsupported"
    >
      <Text size="sm">{t('notBrowserPlayable', { parts: parts.join('; ') })}</Text>
      <Button
        component="a"
        href={downloadUrl}
        download
        size="xs"
        variant="default"
        mt="xs"
        leftSection={<IconDownload size={14} />}
      >
        {t('download')}
      </Button>
    </Alert>
  );
}
