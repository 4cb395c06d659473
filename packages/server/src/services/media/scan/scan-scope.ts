import { posix } from 'node:path';
import { SIDECAR_EXTENSIONS, VIDEO_EXTENSIONS, parseSeasonFolder, splitName } from '../metadata/naming.js';

/** Extensions of files that are never media of a library (music, documents, archives, partial downloads). */
const OTHER_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'mp3 flac m4a aac ogg oga wav wma ape opus alac dsf dff cue m3u m3u8 pls ' +
    'txt pdf doc docx xls xlsx ppt pptx md html htm xml json csv log ini db sqlite ' +
    'zip rar 7z tar gz bz2 xz tgz exe msi dmg apk torrent url lnk ' +
    'part tmp temp crdownload !qb aria2 partial bak swp'
  ).split(' '),
);

/**
 * What a path names, judged by its extension: a video, a file next to one (.nfo, artwork, subtitles),
 * a file that is no media (music, documents, partial downloads), or else a folder.
 */
export function pathKind(path: string): 'video' | 'sidecar' | 'other' | 'folder' {
  const { ext } = splitName(posix.basename(path));
  if (VIDEO_EXTENSIONS.has(ext)) return 'video';
  if (SIDECAR_EXTENSIONS.has(ext)) return 'sidecar';
  if (OTHER_EXTENSIONS.has(ext)) return 'other';
  return 'folder';
}

export const isVideoPath = (path: string) => pathKind(path) === 'video';

/**
 * Where a scan of a source walks and what it may change. A whole-source scan walks the source root. A
 * webhook task on a subtree (a video file or a folder) walks the folder that holds everything the items
 * there are made of: the video's folder, or — for a season folder — the series folder above it, where
 * tvshow.nfo and the artwork lie; only the subtree itself is planned and may lose items.
 */
export function scanScope(
  sourceRoot: string,
  scope: string | null,
): { walkRoot: string; removalScope: string | null } {
  if (scope === null || scope === sourceRoot) return { walkRoot: sourceRoot, removalScope: null };
  let dir = isVideoPath(scope) ? posix.dirname(scope) : scope;
  if (dir !== sourceRoot && parseSeasonFolder(posix.basename(dir)) !== null) dir = posix.dirname(dir);
  const inside = sourceRoot === '/' || dir === sourceRoot || dir.startsWith(`${sourceRoot}/`);
  return { walkRoot: inside ? dir : sourceRoot, removalScope: scope };
}

/** Whether a path lies at or below scope (a file is in scope when it is the scope). */
export function inScope(scope: string): (path: string) => boolean {
  if (scope === '/') return () => true;
  return (path) => path === scope || path.startsWith(`${scope}/`);
}
