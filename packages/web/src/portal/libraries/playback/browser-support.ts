import type { PortalFile } from '@svc/contracts';

/** `HTMLMediaElement.canPlayType`: '' (no), 'maybe' or 'probably'. */
export type CanPlayType = (type: string) => string;

/** The MIME type a browser knows a container by, from the file's extension (the portal's `container`). */
const CONTAINER_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/mp4',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  ogv: 'video/ogg',
  avi: 'video/x-msvideo',
  wmv: 'video/x-ms-wmv',
  asf: 'video/x-ms-asf',
  flv: 'video/x-flv',
  ts: 'video/mp2t',
  m2ts: 'video/mp2t',
  mts: 'video/mp2t',
  mpg: 'video/mpeg',
  mpeg: 'video/mpeg',
  vob: 'video/mpeg',
  rm: 'application/vnd.rn-realmedia',
  rmvb: 'application/vnd.rn-realmedia',
  '3gp': 'video/3gpp',
};

/** ffprobe codec names → the `codecs` parameter (RFC 6381) a browser answers for. */
const CODEC_STRINGS: Record<string, string> = {
  h264: 'avc1.640028',
  hevc: 'hvc1.1.6.L120.90',
  av1: 'av01.0.08M.08',
  vp9: 'vp09.00.40.08',
  vp8: 'vp8',
  theora: 'theora',
  mpeg4: 'mp4v.20.9',
  aac: 'mp4a.40.2',
  mp3: 'mp4a.69',
  opus: 'opus',
  flac: 'flac',
  vorbis: 'vorbis',
  alac: 'alac',
  ac3: 'ac-3',
  eac3: 'ec-3',
  dts: 'dtsc',
  truehd: 'mlpa',
};

/** Codecs no browser decodes and no `codecs` string names. */
const NEVER_PLAYABLE = new Set([
  'mpeg1video',
  'mpeg2video',
  'vc1',
  'wmv1',
  'wmv2',
  'wmv3',
  'msmpeg4v2',
  'msmpeg4v3',
  'rv30',
  'rv40',
  'wmav1',
  'wmav2',
  'wmapro',
  'cook',
]);

export type CodecSupport = 'yes' | 'no' | 'unknown';

export interface BrowserSupport {
  /** `no`: the browser will not play this file; `unknown`: no probe data or names it cannot check. */
  verdict: 'yes' | 'no' | 'unknown';
  /** The container when the browser does not play it (e.g. `AVI`), else null. */
  container: string | null;
  /** The video codec when the browser cannot decode it (e.g. `HEVC`), else null. */
  video: string | null;
  /** The audio codec of the track the browser plays first when it cannot decode it (e.g. `DTS`). */
  audio: string | null;
}

/** The MIME type the browser is asked about, or null for an extension it has no name for. */
export function containerType(container: string): string | null {
  return CONTAINER_TYPES[container.toLowerCase()] ?? null;
}

/** Whether the browser decodes a codec inside a container it plays (`type`, its MIME type). */
export function codecSupport(codec: string, type: string, canPlayType: CanPlayType): CodecSupport {
  const name = codec.toLowerCase();
  if (NEVER_PLAYABLE.has(name)) return 'no';
  const codecs = CODEC_STRINGS[name];
  if (!codecs) return 'unknown';
  return canPlayType(`${type}; codecs="${codecs}"`) !== '' ? 'yes' : 'no';
}

/**
 * Whether the browser can play a file as it is (the play-agent does not transcode): its container, its
 * first video stream and the audio track a browser plays (the default one, else the first).
 */
export function browserSupport(file: PortalFile, canPlayType: CanPlayType): BrowserSupport {
  const type = containerType(file.container);
  const containerOk = type === null ? 'unknown' : canPlayType(type) !== '' ? 'yes' : 'no';
  const video = file.streams.find((stream) => stream.type === 'video');
  const audios = file.streams.filter((stream) => stream.type === 'audio');
  const audio = audios.find((stream) => stream.default) ?? audios[0];
  // In a container the browser does not play, the codecs are judged as if remuxed to MP4.
  const codecType = type !== null && containerOk === 'yes' ? type : 'video/mp4';
  const videoOk = video ? codecSupport(video.codec, codecType, canPlayType) : 'yes';
  const audioOk = audio ? codecSupport(audio.codec, codecType, canPlayType) : 'yes';
  const results = [containerOk, videoOk, audioOk];
  const noProbe = file.streams.length === 0;
  return {
    verdict: results.includes('no') ? 'no' : results.includes('unknown') || noProbe ? 'unknown' : 'yes',
    container: containerOk === 'no' ? file.container.toUpperCase() : null,
    video: videoOk === 'no' && video ? video.codec.toUpperCase() : null,
    audio: audioOk === 'no' && audio ? audio.codec.toUpperCase() : null,
  };
}
