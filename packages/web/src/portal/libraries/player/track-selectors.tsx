import { Group, List, Select, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { trackName, type AudioTrack, type SubtitleTrack } from '../playback/media-tracks.js';

const OFF = 'off';
/** Both track selectors look alike; a choice cannot be cleared (subtitles have their own "Off"). */
const SELECT_LOOK = { size: 'xs', w: 320, allowDeselect: false } as const;

/** The file's subtitles: the browser shows the chosen WebVTT track; picture-based ones are listed disabled. */
export function SubtitleSelect({
  tracks,
  value,
  onChange,
}: {
  tracks: SubtitleTrack[];
  value: number | null;
  onChange: (index: number | null) => void;
}) {
  const { t } = useTranslation('myLibraries');
  if (tracks.length === 0) return null;
  const label = (track: SubtitleTrack) => {
    const notes = [
      track.source === 'external' && t('subtitleExternal'),
      track.forced && t('subtitleForced'),
      track.unavailable === 'image' && t('subtitleImage'),
      track.unavailable === 'format' && t('subtitleFormat'),
    ].filter(Boolean);
    return `${trackName(track)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  };
  return (
    <Select
      {...SELECT_LOOK}
      label={t('subtitles')}
      data-testid="web-player-subtitles"
      value={value === null ? OFF : String(value)}
      onChange={(next) => onChange(next === null || next === OFF ? null : Number(next))}
      data={[
        { value: OFF, label: t('subtitlesOff') },
        ...tracks.map((track) => ({
          value: String(track.index),
          label: label(track),
          disabled: track.url === null,
        })),
      ]}
    />
  );
}

function audioLabel(track: AudioTrack, channels: (count: number) => string): string {
  return [trackName(track), track.channels ? channels(track.channels) : null].filter(Boolean).join(' ');
}

/**
 * The file's audio tracks: a selector where the browser can switch (`audioTracks`), else the list with a
 * note that the default track plays.
 */
export function AudioTracks({
  tracks,
  switchable,
  value,
  onChange,
}: {
  tracks: AudioTrack[];
  switchable: boolean;
  value: number;
  onChange: (position: number) => void;
}) {
  const { t } = useTranslation('myLibraries');
  if (tracks.length < 2) return null;
  const channels = (count: number) => t('audioChannels', { count });
  if (switchable) {
    return (
      <Select
        {...SELECT_LOOK}
        label={t('audioTrack')}
        data-testid="web-player-audio"
        value={String(value)}
        onChange={(next) => next !== null && onChange(Number(next))}
        data={tracks.map((track) => ({ value: String(track.position), label: audioLabel(track, channels) }))}
      />
    );
  }
  return (
    <Group gap="xs" data-testid="web-player-audio-list" align="flex-start">
      <Text size="xs" c="dimmed" maw={420}>
        {t('audioTracksFixed', { count: tracks.length })}
      </Text>
      <List size="xs">
        {tracks.map((track) => (
          <List.Item key={track.index}>{audioLabel(track, channels)}</List.Item>
        ))}
      </List>
    </Group>
  );
}
