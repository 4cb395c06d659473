import type { MediaStream, PortalFile } from '@svc/contracts';
import { trimBaseUrl } from './play-agent-base.js';

/** Embedded subtitle codecs that are text: the play-agent extracts them as WebVTT. */
const TEXT_SUBTITLE_CODECS = new Set(['subrip', 'srt', 'ass', 'ssa', 'webvtt', 'vtt', 'mov_text', 'text']);
/** Subtitles drawn as pictures (Blu-ray PGS, DVD VobSub, DVB): a browser cannot show them as text. */
const IMAGE_SUBTITLE_CODECS = new Set([
  'hdmv_pgs_subtitle',
  'pgssub',
  'dvd_subtitle',
  'dvdsub',
  'dvb_subtitle',
  'dvbsub',
  'xsub',
]);
/** Subtitle files beside the video the play-agent serves as WebVTT. */
const EXTERNAL_VTT_FORMATS = new Set(['srt', 'vtt', 'ass', 'ssa']);

export interface SubtitleTrack {
  /** The stream index the play-agent's subtitle route takes (external files follow the embedded streams). */
  index: number;
  source: 'embedded' | 'external';
  codec: string;
  language: string | null;
  title: string | null;
  default: boolean;
  forced: boolean;
  /** Where the browser loads it as WebVTT; null when it cannot be shown in a browser. */
  url: string | null;
  /** Why not: drawn as pictures, or a format the play-agent does not turn into WebVTT. */
  unavailable: 'image' | 'format' | null;
}

export interface AudioTrack {
  index: number;
  /** Position among the file's audio tracks (the order of `HTMLMediaElement.audioTracks`). */
  position: number;
  codec: string;
  language: string | null;
  title: string | null;
  channels: number | null;
  default: boolean;
}

/** The play-agent's subtitle route (Emby's `/Videos/{Id}/{MediaSourceId}/Subtitles/{Index}/Stream.vtt`). */
export function buildSubtitleUrl(
  baseUrl: string,
  itemId: string,
  index: number,
  accessToken: string,
): string {
  const id = encodeURIComponent(itemId);
  const query = new URLSearchParams({ api_key: accessToken });
  return `${trimBaseUrl(baseUrl)}/Videos/${id}/${id}/Subtitles/${index}/Stream.vtt?${query.toString()}`;
}

function subtitleAvailability(stream: MediaStream): SubtitleTrack['unavailable'] {
  const codec = stream.codec.toLowerCase();
  if (TEXT_SUBTITLE_CODECS.has(codec)) return null;
  return IMAGE_SUBTITLE_CODECS.has(codec) ? 'image' : 'format';
}

/**
 * The file's subtitles in the play-agent's numbering: embedded streams by their index, then the files
 * beside the video from one past the highest stream index (as the media sources of PlaybackInfo list them).
 */
export function subtitleTracks(
  file: PortalFile,
  target: { baseUrl: string; itemId: string; accessToken: string },
): SubtitleTrack[] {
  const url = (index: number) => buildSubtitleUrl(target.baseUrl, target.itemId, index, target.accessToken);
  const embedded = file.streams
    .filter((stream) => stream.type === 'subtitle')
    .map((stream): SubtitleTrack => {
      const unavailable = subtitleAvailability(stream);
      return {
        index: stream.index,
        source: 'embedded',
        codec: stream.codec,
        language: stream.language ?? null,
        title: stream.title ?? null,
        default: stream.default ?? false,
        forced: stream.forced ?? false,
        url: unavailable ? null : url(stream.index),
        unavailable,
      };
    });
  const firstExternal = file.streams.reduce((max, stream) => Math.max(max, stream.index), -1) + 1;
  const external = file.subtitles.map((subtitle, offset): SubtitleTrack => {
    const index = firstExternal + offset;
    const served = EXTERNAL_VTT_FORMATS.has(subtitle.format.toLowerCase());
    return {
      index,
      source: 'external',
      codec: subtitle.format,
      language: subtitle.language,
      title: null,
      default: subtitle.default,
      forced: subtitle.forced,
      url: served ? url(index) : null,
      unavailable: served ? null : 'format',
    };
  });
  return [...embedded, ...external];
}

/** The file's audio tracks in file order. */
export function audioTracks(file: PortalFile): AudioTrack[] {
  return file.streams
    .filter((stream) => stream.type === 'audio')
    .map((stream, position) => ({
      index: stream.index,
      position,
      codec: stream.codec,
      language: stream.language ?? null,
      title: stream.title ?? null,
      channels: stream.channels ?? null,
      default: stream.default ?? false,
    }));
}

/** A short name for a track: its title, language and codec (`Director's cut ENG AAC`). */
export function trackName(track: { title: string | null; language: string | null; codec: string }): string {
  return [track.title, track.language?.toUpperCase(), track.codec.toUpperCase()].filter(Boolean).join(' ');
}

/**
 * Whether this browser lets a page choose the audio track: `HTMLMediaElement.audioTracks` exists in
 * Safari, and in Chromium only behind a flag; elsewhere the browser plays the default track.
 */
export function canSwitchAudio(video: HTMLVideoElement | null): boolean {
  const list = audioTrackList(video);
  return list !== undefined && list.length > 1;
}

/** `HTMLMediaElement.audioTracks` where the browser has it (the DOM types leave it out). */
export function audioTrackList(video: HTMLVideoElement | null): ArrayLike<{ enabled: boolean }> | undefined {
  return (video as unknown as { audioTracks?: ArrayLike<{ enabled: boolean }> } | null)?.audioTracks;
}
