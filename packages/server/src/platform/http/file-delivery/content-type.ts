import path from 'node:path';
import { lookup } from 'mime-types';

/**
 * Media types players need exactly as they are (several differ in mime-db, which names for example
 * `audio/x-flac` or none for `.ass`), by container name (ffprobe format names, Emby container strings) and
 * by file extension. Anything else is looked up in mime-db through `mime-types`.
 */
const PLAYER_TYPES = new Map<string, string>(
  Object.entries({
    mkv: 'video/x-matroska',
    mk3d: 'video/x-matroska',
    matroska: 'video/x-matroska',
    'matroska,webm': 'video/x-matroska',
    webm: 'video/webm',
    mp4: 'video/mp4',
    m4v: 'video/mp4',
    'mov,mp4,m4a,3gp,3g2,mj2': 'video/mp4',
    mov: 'video/quicktime',
    '3gp': 'video/3gpp',
    ts: 'video/mp2t',
    mts: 'video/mp2t',
    m2ts: 'video/mp2t',
    mpegts: 'video/mp2t',
    avi: 'video/x-msvideo',
    wmv: 'video/x-ms-wmv',
    asf: 'video/x-ms-asf',
    flv: 'video/x-flv',
    mpg: 'video/mpeg',
    mpeg: 'video/mpeg',
    vob: 'video/mpeg',
    ogv: 'video/ogg',
    mp3: 'audio/mpeg',
    flac: 'audio/flac',
    m4a: 'audio/mp4',
    m4b: 'audio/mp4',
    aac: 'audio/aac',
    ogg: 'audio/ogg',
    oga: 'audio/ogg',
    opus: 'audio/opus',
    wav: 'audio/wav',
    wma: 'audio/x-ms-wma',
    srt: 'application/x-subrip',
    subrip: 'application/x-subrip',
    ass: 'text/x-ssa',
    ssa: 'text/x-ssa',
    vtt: 'text/vtt',
    webvtt: 'text/vtt',
    sup: 'application/octet-stream',
    // Text a library keeps beside its media (NFO metadata), read as UTF-8.
    nfo: 'text/plain; charset=utf-8',
    txt: 'text/plain; charset=utf-8',
  }),
);

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/**
 * The Content-Type of a file: from its container when one is known (`mkv`, `matroska,webm`, …), else from
 * the extension of its name, else application/octet-stream.
 */
export function contentTypeOf(options: { container?: string | null; name?: string | null }): string {
  const container = options.container?.trim().toLowerCase();
  if (container) {
    const known = PLAYER_TYPES.get(container) ?? PLAYER_TYPES.get(container.split(',')[0]!);
    if (known) return known;
  }
  if (options.name) {
    const extension = path.extname(options.name).slice(1).toLowerCase();
    if (extension) return PLAYER_TYPES.get(extension) ?? (lookup(extension) || DEFAULT_CONTENT_TYPE);
  }
  return DEFAULT_CONTENT_TYPE;
}
