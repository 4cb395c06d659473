import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Group, Stack } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import type { PortalFile } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session.js';
import { browserSupport } from './playback/browser-support.js';
import { audioTrackList, audioTracks, canSwitchAudio, subtitleTracks } from './playback/media-tracks.js';
import {
  classifyPlaybackFailure,
  MEDIA_ERR,
  probeStream,
  type StreamProbe,
} from './playback/playback-failure.js';
import { buildDownloadUrl, buildStreamUrl, compactProtocolId } from './playback/stream-url.js';
import { usePlaybackReports } from './playback/use-playback-reports.js';
import { BrowserSupportNotice } from './player/browser-support-notice.js';
import { PlaybackFailureAlert, type FailureState } from './player/playback-failure-alert.js';
import { AudioTracks, SubtitleSelect } from './player/track-selectors.js';

const canPlayType = (type: string) => document.createElement('video').canPlayType(type);

/**
 * Plays an item in the browser straight from a play-agent (no transcoding: the browser must support the
 * file's format) and reports the playback there, so it counts and shows like any player's. It warns
 * before playing when the browser cannot play the file, offers the subtitles as WebVTT tracks and the
 * audio tracks where the browser can switch, and tells why a playback failed (docs/web.md).
 */
export function WebPlayer({
  baseUrl,
  playbackItemId,
  title,
  file,
  onClose,
}: {
  baseUrl: string;
  playbackItemId: string;
  title: string;
  /** The item's file (streams, subtitles); null while unknown. */
  file: PortalFile | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('myLibraries');
  const { credentials } = useSession();
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const [failure, setFailure] = useState<FailureState | null>(null);
  const [subtitle, setSubtitle] = useState<number | null>(null);
  // Kept with the track it belongs to, so choosing another track hides it without resetting state.
  const [subtitleFailure, setSubtitleFailure] = useState<{ index: number; reason: string } | null>(null);
  const subtitleError = subtitleFailure?.index === subtitle ? subtitleFailure.reason : null;
  const [audioSwitchable, setAudioSwitchable] = useState(false);
  const [audioPosition, setAudioPosition] = useState(0);
  const accessToken = credentials?.accessToken ?? '';
  const itemId = compactProtocolId(playbackItemId);
  const streamUrl = buildStreamUrl(baseUrl, itemId, accessToken);
  usePlaybackReports(video, { baseUrl, itemId, mediaSourceId: itemId, accessToken });

  const support = useMemo(() => (file ? browserSupport(file, canPlayType) : null), [file]);
  const subtitles = useMemo(
    () => (file ? subtitleTracks(file, { baseUrl, itemId, accessToken }) : []),
    [file, baseUrl, itemId, accessToken],
  );
  const audios = useMemo(() => (file ? audioTracks(file) : []), [file]);

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

  // One text track shows at a time; a track that fails to load is asked why, like the video.
  useEffect(() => {
    if (!video) return undefined;
    const elements = Array.from(video.querySelectorAll('track'));
    for (const element of elements) {
      if (element.track)
        element.track.mode = Number(element.dataset.index) === subtitle ? 'showing' : 'disabled';
    }
    const chosen = elements.find((element) => Number(element.dataset.index) === subtitle);
    if (!chosen) return undefined;
    const explain = (probe: StreamProbe) =>
      !probe.reachable
        ? t('playFailure.unreachable', { address: baseUrl })
        : `${probe.status} ${probe.code ?? ''} ${probe.message ?? ''}`.trim();
    const onError = () =>
      void probeStream(chosen.src).then((probe) =>
        setSubtitleFailure({ index: Number(chosen.dataset.index), reason: explain(probe) }),
      );
    chosen.addEventListener('error', onError);
    return () => chosen.removeEventListener('error', onError);
  }, [video, subtitle, subtitles, baseUrl, t]);

  const chooseAudio = (position: number) => {
    const list = audioTrackList(video);
    if (!list) return;
    for (let index = 0; index < list.length; index += 1) list[index]!.enabled = index === position;
    setAudioPosition(position);
  };

  const onError = (element: HTMLVideoElement) => {
    const code = element.error?.code ?? null;
    if (code === MEDIA_ERR.ABORTED) return;
    setFailure({ cause: 'checking', probe: null });
    void probeStream(streamUrl).then((probe) =>
      setFailure({ cause: classifyPlaybackFailure(code, probe), probe }),
    );
  };

  return (
    <Stack gap="xs">
      {support?.verdict === 'no' && (
        <BrowserSupportNotice
          support={support}
          downloadUrl={buildDownloadUrl(baseUrl, itemId, accessToken)}
        />
      )}
      <video
        ref={setVideo}
        src={streamUrl}
        // The subtitle tracks come from the play-agent's origin: without CORS mode the browser drops them.
        crossOrigin="anonymous"
        controls
        autoPlay
        playsInline
        preload="metadata"
        aria-label={t('playerLabel', { title })}
        data-testid="web-player"
        onError={(event) => onError(event.currentTarget)}
        onPlaying={() => setFailure(null)}
        onLoadedMetadata={(event) => setAudioSwitchable(canSwitchAudio(event.currentTarget))}
        style={{
          width: '100%',
          maxHeight: '70vh',
          borderRadius: 'var(--mantine-radius-md)',
          background: 'var(--mantine-color-dark-9)',
        }}
      >
        {subtitles.map(
          (track) =>
            track.url && (
              <track
                key={track.index}
                kind="subtitles"
                src={track.url}
                label={track.language ?? track.codec}
                {...(track.language ? { srcLang: track.language } : {})}
                data-index={track.index}
                data-testid="web-player-track"
              />
            ),
        )}
      </video>
      {failure && <PlaybackFailureAlert failure={failure} address={baseUrl} />}
      <Group justify="space-between" align="flex-end">
        <Group align="flex-end">
          <SubtitleSelect tracks={subtitles} value={subtitle} onChange={setSubtitle} />
          <AudioTracks
            tracks={audios}
            switchable={audioSwitchable}
            value={audioPosition}
            onChange={chooseAudio}
          />
        </Group>
        <Button
          variant="default"
          leftSection={<IconX size={16} />}
          onClick={onClose}
          data-testid="web-player-close"
        >
          {t('closePlayer')}
        </Button>
      </Group>
      {subtitleError && (
        <Alert color="orange" data-testid="web-player-subtitle-error">
          {t('subtitleFailed', { reason: subtitleError })}
        </Alert>
      )}
    </Stack>
  );
}
