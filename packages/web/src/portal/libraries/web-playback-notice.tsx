import { Alert, List, Text } from '@mantine/core';
import { IconVideoOff } from '@tabler/icons-react';
import type { WebPlaybackBlock } from './playback/web-playback-state.js';
import { useTranslation } from 'react-i18next';

/** Why the Play button is missing: the global switch, the account's own switch, or both are off. */
export function WebPlaybackNotice({ blocks }: { blocks: WebPlaybackBlock[] }) {
  const { t } = useTranslation('myLibraries');
  return (
    <Alert color="yellow" variant="light" icon={<IconVideoOff size={18} />} data-testid="web-playback-off">
      <List size="sm" spacing={2}>
        {blocks.map((block) => (
          <List.Item key={block} data-block={block}>
            {t(block === 'system' ? 'webPlaybackOffSystem' : 'webPlaybackOffUser')}
          </List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        {t('webPlaybackHint')}
      </Text>
    </Alert>
  );
}
