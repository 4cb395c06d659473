import { Button, Skeleton } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import type { MyWebPlaybackResponse } from '@svc/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../shell/error-alert.js';
import { webPlaybackBlocks } from './playback/web-playback-state.js';
import { WebPlaybackNotice } from './web-playback-notice.js';

/**
 * The Play in browser button when the account may play in the browser (GET /api/auth/me/web-playback
 * `allowed`), otherwise the reason. `onPlay` null: nothing of this item itself is playable (a series).
 */
export function PlayAction({
  webPlayback,
  ready,
  onPlay,
}: {
  webPlayback: UseQueryResult<MyWebPlaybackResponse, unknown>;
  /** The play-agent address is known. */
  ready: boolean;
  onPlay: (() => void) | null;
}) {
  const { t } = useTranslation('myLibraries');
  if (webPlayback.isPending) return <Skeleton height={36} width={180} radius="sm" />;
  if (webPlayback.isError)
    return <ErrorAlert error={webPlayback.error} onRetry={() => void webPlayback.refetch()} />;
  const blocks = webPlaybackBlocks(webPlayback.data);
  if (blocks.length > 0) return <WebPlaybackNotice blocks={blocks} />;
  if (!onPlay) return null;
  return (
    <Button
      leftSection={<IconPlayerPlay size={18} />}
      onClick={onPlay}
      loading={!ready}
      data-testid="play-in-browser"
      style={{ alignSelf: 'flex-start' }}
    >
      {t('play')}
    </Button>
  );
}
