import { posix } from 'node:path';
import type { ExternalSubtitle, LibraryType } from '@svc/contracts';
import {
  IMAGE_EXTENSIONS,
  SUBTITLE_EXTENSIONS,
  isSkippedFile,
  isSkippedFolder,
  isVideoFile,
  parseEpisode,
  parseSeasonFolder,
  parseSubtitleSuffix,
  parseTitle,
  splitName,
  type ParsedTitle,
} from '../metadata/naming.js';

/** A file found by a walk; the path is inside the mount, with a leading '/'. */
export interface FileRef {
  path: string;
  size: number;
  mtime: string;
}

export interface PlannedMovie {
  key: string;
  file: FileRef;
  parsed: ParsedTitle;
  nfo: FileRef | null;
  images: { poster?: FileRef; fanart?: FileRef };
  subtitles: ExternalSubtitle[];
  sidecarSig: string;
}

export interface PlannedSeries {
  key: string;
  /** The series folder; null for episodes lying loose in the source root. */
  folder: string | null;
  /** Where the series is said to be (its folder, else the source root). */
  path: string;
  parsed: ParsedTitle;
  nfo: FileRef | null;
  images: { poster?: FileRef; fanart?: FileRef };
  sidecarSig: string;
}

export interface PlannedSeason {
  key: string;
  seriesKey: string;
  seasonNumber: number;
  path: string;
  images: { poster?: FileRef };
  sidecarSig: string;
}

export interface PlannedEpisode {
  key: string;
  file: FileRef;
  seriesKey: string;
  seasonKey: string;
  seasonNumber: number;
  episodeNumber: number;
  episodeNumberEnd: number | null;
  name: string | null;
  nfo: FileRef | null;
  images: { thumb?: FileRef };
  subtitles: ExternalSubtitle[];
  sidecarSig: string;
}

export interface LibraryPlan {
  movies: PlannedMovie[];
  series: Map<string, PlannedSeries>;
  seasons: Map<string, PlannedSeason>;
  episodes: PlannedEpisode[];
  /** Video files (in scope) that were not recognised. */
  skipped: string[];
}

export const movieKey = (path: string) => `file:${path}`;
export const episodeKey = (path: string) => `file:${path}`;

type DirIndex = Map<string, Map<string, FileRef>>;

function isInside(path: string, root: string): boolean {
  return root === '/' ? path.startsWith('/') : path === root || path.startsWith(`${root}/`);
}

function signature(refs: (FileRef | null | undefined)[]): string {
  return refs
    .filter((ref): ref is FileRef => !!ref)
    .map((ref) => `${ref.path}:${ref.size}:${ref.mtime}`)
    .sort()
    .join('|');
}

function findFile(index: DirIndex, dir: string, names: string[]): FileRef | undefined {
  const files = index.get(dir);
  if (!files) return undefined;
  for (const name of names) {
    const found = files.get(name.toLowerCase());
    if (found) return found;
  }
  return undefined;
}

function findImage(index: DirIndex, dir: string, bases: string[]): FileRef | undefined {
  return findFile(
    index,
    dir,
    bases.flatMap((base) => [...IMAGE_EXTENSIONS].map((ext) => `${base}.${ext}`)),
  );
}

function subtitlesFor(index: DirIndex, dir: string, base: string): ExternalSubtitle[] {
  const files = index.get(dir);
  if (!files) return [];
  const prefix = `${base.toLowerCase()}.`;
  const found: ExternalSubtitle[] = [];
  for (const [lowerName, ref] of files) {
    if (!lowerName.startsWith(prefix)) continue;
    const { ext } = splitName(lowerName);
    if (!SUBTITLE_EXTENSIONS.has(ext)) continue;
    const suffix = posix.basename(ref.path).slice(base.length + 1, -(ext.length + 1));
    found.push({ path: ref.path, format: ext, ...parseSubtitleSuffix(suffix) });
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Turns the files a walk found below a library source into the items they make: movies, series with their
 * seasons and episodes, with the .nfo files, artwork and subtitles next to them. `include` limits which
 * video files are planned (a webhook task's subtree); sidecars are looked up among all walked files.
 */
export function planLibrary(
  type: LibraryType,
  sourceRoot: string,
  files: readonly FileRef[],
  include: (path: string) => boolean = () => true,
): LibraryPlan {
  const index: DirIndex = new Map();
  const videos: FileRef[] = [];
  const videosPerDir = new Map<string, number>();
  for (const file of files) {
    if (!isInside(file.path, sourceRoot) || file.path === sourceRoot) continue;
    const dir = posix.dirname(file.path);
    const name = posix.basename(file.path);
    let entries = index.get(dir);
    if (!entries) index.set(dir, (entries = new Map<string, FileRef>()));
    entries.set(name.toLowerCase(), file);
    if (!isVideoFile(name) || isSkippedFile(name)) continue;
    const relative = posix.relative(sourceRoot, dir);
    if (relative !== '' && relative.split('/').some(isSkippedFolder)) continue;
    videosPerDir.set(dir, (videosPerDir.get(dir) ?? 0) + 1);
    videos.push(file);
  }

  const plan: LibraryPlan = { movies: [], series: new Map(), seasons: new Map(), episodes: [], skipped: [] };

  for (const file of videos) {
    if (!include(file.path)) continue;
    const dir = posix.dirname(file.path);
    const { base } = splitName(posix.basename(file.path));
    const folderSeason = dir !== sourceRoot ? parseSeasonFolder(posix.basename(dir)) : null;
    const episode = type === 'movies' ? null : parseEpisode(base, folderSeason !== null);
    if (episode) {
      planEpisode(plan, index, sourceRoot, file, dir, base, folderSeason, episode);
    } else if (type === 'series') {
      plan.skipped.push(file.path);
    } else {
      planMovie(plan, index, sourceRoot, file, dir, base, videosPerDir.get(dir) ?? 1);
    }
  }
  return plan;
}

function planMovie(
  plan: LibraryPlan,
  index: DirIndex,
  sourceRoot: string,
  file: FileRef,
  dir: string,
  base: string,
  videosInDir: number,
): void {
  const ownFolder = dir !== sourceRoot && videosInDir === 1;
  const fromFile = parseTitle(base);
  let parsed = fromFile;
  if (ownFolder) {
    const fromFolder = parseTitle(posix.basename(dir));
    if (fromFolder.year !== null || fromFile.year === null) {
      parsed = {
        ...fromFolder,
        imdbId: fromFolder.imdbId ?? fromFile.imdbId,
        tmdbId: fromFolder.tmdbId ?? fromFile.tmdbId,
      };
    }
  }
  const nfo = findFile(index, dir, ownFolder ? [`${base}.nfo`, 'movie.nfo'] : [`${base}.nfo`]) ?? null;
  const poster = findImage(
    index,
    dir,
    ownFolder ? [`${base}-poster`, 'poster', 'folder', 'cover', 'movie'] : [`${base}-poster`],
  );
  const fanart = findImage(
    index,
    dir,
    ownFolder ? [`${base}-fanart`, 'fanart', 'backdrop', 'background'] : [`${base}-fanart`],
  );
  const subtitles = subtitlesFor(index, dir, base);
  plan.movies.push({
    key: movieKey(file.path),
    file,
    parsed,
    nfo,
    images: { ...(poster ? { poster } : {}), ...(fanart ? { fanart } : {}) },
    subtitles,
    sidecarSig: signature([
      nfo,
      poster,
      fanart,
      ...subtitles.map((s) => index.get(dir)?.get(posix.basename(s.path).toLowerCase())),
    ]),
  });
}

function planEpisode(
  plan: LibraryPlan,
  index: DirIndex,
  sourceRoot: string,
  file: FileRef,
  dir: string,
  base: string,
  folderSeason: number | null,
  episode: NonNullable<ReturnType<typeof parseEpisode>>,
): void {
  // The series folder: the parent of a season folder, else the episode's own folder (never above the root).
  let seriesFolder: string | null;
  if (folderSeason !== null) seriesFolder = posix.dirname(dir);
  else seriesFolder = dir !== sourceRoot ? dir : null;
  if (seriesFolder !== null && !isInside(seriesFolder, sourceRoot)) seriesFolder = null;

  const parsedSeries = seriesFolder
    ? parseTitle(posix.basename(seriesFolder))
    : parseTitle(episode.seriesPart ?? base);
  const seriesKey = seriesFolder
    ? `series:${seriesFolder}`
    : `series:${sourceRoot}#${parsedSeries.title.toLowerCase()}`;
  if (!plan.series.has(seriesKey)) {
    const nfo = seriesFolder ? (findFile(index, seriesFolder, ['tvshow.nfo']) ?? null) : null;
    const poster = seriesFolder ? findImage(index, seriesFolder, ['poster', 'folder', 'cover']) : undefined;
    const fanart = seriesFolder
      ? findImage(index, seriesFolder, ['fanart', 'backdrop', 'background'])
      : undefined;
    plan.series.set(seriesKey, {
      key: seriesKey,
      folder: seriesFolder,
      path: seriesFolder ?? sourceRoot,
      parsed: parsedSeries,
      nfo,
      images: { ...(poster ? { poster } : {}), ...(fanart ? { fanart } : {}) },
      sidecarSig: signature([nfo, poster, fanart]),
    });
  }

  const seasonNumber = episode.seasonNumber ?? folderSeason ?? 1;
  const seasonKey = `season:${seriesKey}#${seasonNumber}`;
  if (!plan.seasons.has(seasonKey)) {
    const padded = String(seasonNumber).padStart(2, '0');
    const names =
      seasonNumber === 0 ? ['season-specials-poster', 'season00-poster'] : [`season${padded}-poster`];
    if (seasonNumber > 99) names.push(`season${seasonNumber}-poster`);
    let poster = seriesFolder ? findImage(index, seriesFolder, names) : undefined;
    if (!poster && folderSeason !== null) poster = findImage(index, dir, ['poster', 'folder', 'cover']);
    plan.seasons.set(seasonKey, {
      key: seasonKey,
      seriesKey,
      seasonNumber,
      path: folderSeason !== null ? dir : (seriesFolder ?? sourceRoot),
      images: poster ? { poster } : {},
      sidecarSig: signature([poster]),
    });
  }

  const nfo = findFile(index, dir, [`${base}.nfo`]) ?? null;
  const thumb = findImage(index, dir, [`${base}-thumb`, base]);
  const subtitles = subtitlesFor(index, dir, base);
  plan.episodes.push({
    key: episodeKey(file.path),
    file,
    seriesKey,
    seasonKey,
    seasonNumber,
    episodeNumber: episode.episodeNumber,
    episodeNumberEnd: episode.episodeNumberEnd,
    name: episode.episodeName,
    nfo,
    images: thumb ? { thumb } : {},
    subtitles,
    sidecarSig: signature([
      nfo,
      thumb,
      ...subtitles.map((s) => index.get(dir)?.get(posix.basename(s.path).toLowerCase())),
    ]),
  });
}
