import { useEffect, useState } from 'react';
import { Alert, Button, Group, Stack } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session.js';
import { buildStreamUrl, compactProtocolId } from './playback/stream-url.js';
import { usePlaybackReports } from './playback/use-playback-reports.js';

/**
 * Plays an item in the browser straight from a play-agent (no transcoding: the browser must support the
 * file's format) and reports the playback there, so it counts and shows like any player's.
 */
export function WebPlayer({
  baseUrl,
  playbackItemId,
  title,
  onClose,
}: {
  baseUrl: string;
  playbackItemId: string;
  title: string;
  onClose: () => void;
}) {
  const { t } = useTranslation('myLibraries');
  const { credentials } = useSession();
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const [failed, setFailed] = useState(false);
  const accessToken = credentials?.accessToken ?? '';
  const itemId = compactProtocolId(playbackItemId);
  usePlaybackReports(video, { baseUrl, itemId, mediaSourceId: itemId, accessToken });

  // Leaving the player ends the download too, not only the picture.
  useEffect(
    () => () => {
      if (!video) return;
      video.pause();
      video.removeAttribute('src');
      video.load();
    },
    [video],
  );

  return (
    <Stack gap="xs">
      <video
        ref={setVideo}
        src={buildStreamUrl(baseUrl, itemId, accessToken)}
        controls
        autoPlay
        playsInline
        preload="metadata"
        aria-label={t('playerLabel', { title })}
        data-testid="web-player"
        onError={() => setFailed(true)}
        onPlaying={() => setFailed(false)}
        style={{
          width: '100%',
          maxHeight: '70vh',
          borderRadius: 'var(--mantine-radius-md)',
          background: 'var(--mantine-color-dark-9)',
        }}
      />
      {failed && (
        <Alert color="red" data-testid="web-player-error">
          {t('playFailed')}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button
          variant="default"
          leftSection={<IconX size={16} />}
          onClick={onClose}
          data-testid="web-player-close"
        >
          {t('closePlayer')}
        </Button>
      </Group>
    </Stack>
  );
}
