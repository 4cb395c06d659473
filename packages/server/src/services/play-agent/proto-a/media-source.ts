import type { MediaStream, PlaybackItem } from '@svc/contracts';
import { containerOf, runTimeTicks, type ServerIdentity } from './dto.js';
import { toProtocolId } from './ids.js';

type Dto = Record<string, unknown>;

const STREAM_TYPE = { video: 'Video', audio: 'Audio', subtitle: 'Subtitle' } as const;
/** Subtitle codecs that are text (a player can render them itself; the subtitle route extracts them). */
export const TEXT_SUBTITLES = new Set(['subrip', 'srt', 'ass', 'ssa', 'webvtt', 'vtt', 'mov_text', 'text']);

function displayTitle(stream: MediaStream): string {
  const parts = [stream.title, stream.language?.toUpperCase(), stream.codec.toUpperCase()];
  if (stream.type === 'video' && stream.height) parts.push(`${stream.height}p`);
  if (stream.type === 'audio' && stream.channels) parts.push(`${stream.channels} ch`);
  return parts.filter(Boolean).join(' ');
}

export interface MediaSourceOptions {
  server: ServerIdentity;
  /** Added to the stream URLs as api_key, so players that cannot send headers can play. */
  token?: string;
  playSessionId?: string;
}

/** The subtitle route of an external subtitle (relative; clients prefix their server address). */
export function subtitleUrl(itemId: string, index: number, format: string, token?: string): string {
  const id = toProtocolId(itemId);
  const key = token ? `?api_key=${encodeURIComponent(token)}` : '';
  return `/Videos/${id}/${id}/Subtitles/${index}/Stream.${format}${key}`;
}

/** The one media source of a movie or episode: the file, played directly (no transcoding here). */
export function mediaSourceDto(item: PlaybackItem, options: MediaSourceOptions): Dto {
  const file = item.file;
  if (!file) return {};
  const id = toProtocolId(item.id);
  const container = containerOf(file);
  const embedded = file.mediaInfo?.streams ?? [];
  const streams: Dto[] = embedded.map((stream) => ({
    Codec: stream.codec,
    ...(stream.language ? { Language: stream.language, DisplayLanguage: stream.language } : {}),
    ...(stream.title ? { Title: stream.title } : {}),
    DisplayTitle: displayTitle(stream),
    IsDefault: stream.default ?? false,
    IsForced: stream.forced ?? false,
    IsHearingImpaired: false,
    ...(stream.width ? { Width: stream.width } : {}),
    ...(stream.height ? { Height: stream.height } : {}),
    ...(stream.channels ? { Channels: stream.channels } : {}),
    Type: STREAM_TYPE[stream.type],
    Index: stream.index,
    IsExternal: false,
    IsTextSubtitleStream: stream.type === 'subtitle' && TEXT_SUBTITLES.has(stream.codec),
    SupportsExternalStream: false,
    // The player reads embedded subtitles from the file it receives (nothing is burnt in or extracted).
    ...(stream.type === 'subtitle' ? { DeliveryMethod: 'Embed' } : {}),
    Protocol: 'File',
  }));
  const firstExternal = embedded.reduce((max, stream) => Math.max(max, stream.index), -1) + 1;
  file.subtitles.forEach((subtitle, offset) => {
    const index = firstExternal + offset;
    streams.push({
      Codec: subtitle.format,
      ...(subtitle.language ? { Language: subtitle.language, DisplayLanguage: subtitle.language } : {}),
      DisplayTitle: [subtitle.language?.toUpperCase(), subtitle.format.toUpperCase(), 'external']
        .filter(Boolean)
        .join(' '),
      IsDefault: subtitle.default,
      IsForced: subtitle.forced,
      IsHearingImpaired: subtitle.hearingImpaired,
      Type: 'Subtitle',
      Index: index,
      IsExternal: true,
      IsTextSubtitleStream: true,
      SupportsExternalStream: true,
      DeliveryMethod: 'External',
      DeliveryUrl: subtitleUrl(item.id, index, subtitle.format, options.token),
      IsExternalUrl: false,
      Path: subtitle.path,
      Protocol: 'File',
    });
  });
  const query = new URLSearchParams({ Static: 'true', MediaSourceId: id });
  if (options.playSessionId) query.set('PlaySessionId', options.playSessionId);
  if (options.token) query.set('api_key', options.token);
  const runtime = runTimeTicks(item);
  const audio =
    embedded.find((stream) => stream.type === 'audio' && stream.default) ??
    embedded.find((stream) => stream.type === 'audio');
  return {
    Protocol: 'File',
    Id: id,
    ItemId: id,
    ServerId: options.server.serverId,
    Path: file.path,
    Type: 'Default',
    Container: container,
    ...(file.size !== null ? { Size: file.size } : {}),
    Name: item.name,
    IsRemote: false,
    ...(runtime ? { RunTimeTicks: runtime } : {}),
    SupportsTranscoding: false,
    SupportsDirectStream: true,
    SupportsDirectPlay: true,
    IsInfiniteStream: false,
    RequiresOpening: false,
    RequiresClosing: false,
    RequiresLooping: false,
    SupportsProbing: true,
    MediaStreams: streams,
    Formats: [],
    ...(file.mediaInfo?.bitrate ? { Bitrate: file.mediaInfo.bitrate } : {}),
    RequiredHttpHeaders: {},
    DirectStreamUrl: `/Videos/${id}/stream.${container}?${query.toString()}`,
    AddApiKeyToDirectStreamUrl: false,
    ReadAtNativeFramerate: false,
    ...(audio ? { DefaultAudioStreamIndex: audio.index } : {}),
  };
}
