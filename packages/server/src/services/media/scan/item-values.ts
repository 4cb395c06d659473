import type { MediaInfo } from '@svc/contracts';
import type { IndexRow, ItemPatch } from '../items/items.repository.js';
import type { StoredImages } from '../media.db.js';
import type { ProviderTitle } from '../metadata/metadata-provider.js';
import { sortTitle } from '../metadata/naming.js';
import type { NfoData } from '../metadata/nfo.js';
import type {
  FileRef,
  PlannedEpisode,
  PlannedMovie,
  PlannedSeason,
  PlannedSeries,
} from './library-layout.js';

/** What is known about a movie or series once its .nfo, the provider and its name were consulted. */
export interface Described {
  title: string;
  originalTitle: string | null;
  year: number | null;
  releaseDate: string | null;
  overview: string | null;
  tmdbId: string | null;
  imdbId: string | null;
  providerPosterPath: string | null;
  providerPosterUrl: string | null;
}

/**
 * Merges what is known about a title: the .nfo wins, then the provider, then the file or folder name.
 */
export function describe(
  nfo: NfoData | null,
  provider: ProviderTitle | null,
  parsed: { title: string; year: number | null; tmdbId: string | null; imdbId: string | null },
): Described {
  const releaseDate = nfo?.releaseDate ?? provider?.releaseDate ?? null;
  return {
    title: nfo?.title ?? provider?.title ?? parsed.title,
    originalTitle: nfo?.originalTitle ?? provider?.originalTitle ?? null,
    year:
      nfo?.year ?? provider?.year ?? parsed.year ?? (releaseDate ? Number(releaseDate.slice(0, 4)) : null),
    releaseDate,
    overview: nfo?.plot ?? provider?.overview ?? null,
    tmdbId: nfo?.tmdbId ?? parsed.tmdbId ?? provider?.tmdbId ?? null,
    imdbId: nfo?.imdbId ?? parsed.imdbId ?? provider?.imdbId ?? null,
    providerPosterPath: provider?.posterPath ?? null,
    providerPosterUrl: provider?.posterUrl ?? null,
  };
}

/** What a stored row says about its title (a series kept as it was). */
export function describedOf(row: IndexRow): Described {
  return {
    title: row.title,
    originalTitle: row.original_title,
    year: row.year,
    releaseDate: row.release_date,
    overview: row.overview,
    tmdbId: row.tmdb_id,
    imdbId: row.imdb_id,
    providerPosterPath: row.provider_poster_path,
    providerPosterUrl: row.provider_poster_url,
  };
}

export function storedImages(images: Partial<Record<'poster' | 'fanart' | 'thumb', FileRef>>): StoredImages {
  const stored: StoredImages = {};
  for (const [type, ref] of Object.entries(images) as ['poster' | 'fanart' | 'thumb', FileRef][]) {
    stored[type] = { path: ref.path, size: ref.size, mtime: ref.mtime };
  }
  return stored;
}

/** An incremental scan skips a file whose size, modification time and sidecar files are as stored. */
export const unchanged = (row: IndexRow, file: FileRef, sidecarSig: string) =>
  row.file_size === file.size &&
  row.file_mtime !== null &&
  row.file_mtime.getTime() === Date.parse(file.mtime) &&
  row.sidecar_sig === sidecarSig;

function describedValues(described: Described): ItemPatch {
  return {
    title: described.title,
    sort_title: sortTitle(described.title),
    original_title: described.originalTitle,
    year: described.year,
    release_date: described.releaseDate,
    overview: described.overview,
    tmdb_id: described.tmdbId,
    imdb_id: described.imdbId,
    provider_poster_path: described.providerPosterPath,
    provider_poster_url: described.providerPosterUrl,
  };
}

/** The columns of a video file's item: its file, probe result, subtitles and artwork. */
function fileValues(
  planned: PlannedMovie | PlannedEpisode,
  mediaInfo: MediaInfo | null,
  now: Date,
): ItemPatch {
  return {
    file_size: planned.file.size,
    file_mtime: new Date(planned.file.mtime),
    sidecar_sig: planned.sidecarSig,
    media_info: mediaInfo ? JSON.stringify(mediaInfo) : null,
    subtitles: JSON.stringify(planned.subtitles),
    images: JSON.stringify(storedImages(planned.images)),
    updated_at: now,
  };
}

export function movieValues(
  movie: PlannedMovie,
  described: Described,
  mediaInfo: MediaInfo | null,
  now: Date,
): ItemPatch {
  return { path: movie.file.path, ...describedValues(described), ...fileValues(movie, mediaInfo, now) };
}

export function episodeValues(
  episode: PlannedEpisode,
  nfo: NfoData | null,
  mediaInfo: MediaInfo | null,
  parents: { seasonId: string; seriesId: string },
  now: Date,
): ItemPatch {
  const title = nfo?.title ?? episode.name ?? `Episode ${episode.episodeNumber}`;
  const releaseDate = nfo?.releaseDate ?? null;
  return {
    parent_id: parents.seasonId,
    series_id: parents.seriesId,
    path: episode.file.path,
    title,
    sort_title: sortTitle(title),
    original_title: nfo?.originalTitle ?? null,
    year: nfo?.year ?? (releaseDate ? Number(releaseDate.slice(0, 4)) : null),
    release_date: releaseDate,
    overview: nfo?.plot ?? null,
    tmdb_id: nfo?.tmdbId ?? null,
    imdb_id: nfo?.imdbId ?? null,
    season_number: episode.seasonNumber,
    episode_number: episode.episodeNumber,
    episode_number_end: episode.episodeNumberEnd,
    ...fileValues(episode, mediaInfo, now),
  };
}

export function seriesValues(
  series: PlannedSeries,
  described: Described,
  images: StoredImages,
  now: Date,
): ItemPatch {
  return {
    path: series.path,
    ...describedValues(described),
    sidecar_sig: series.sidecarSig,
    images: JSON.stringify(images),
    updated_at: now,
  };
}

export function seasonValues(season: PlannedSeason, seriesId: string, now: Date): ItemPatch {
  const title = season.seasonNumber === 0 ? 'Specials' : `Season ${season.seasonNumber}`;
  return {
    parent_id: seriesId,
    series_id: seriesId,
    path: season.path,
    title,
    sort_title: sortTitle(title),
    season_number: season.seasonNumber,
    sidecar_sig: season.sidecarSig,
    images: JSON.stringify(storedImages(season.images)),
    updated_at: now,
  };
}
