import type { Library, MediaImages, MediaItemSummary, ScanStatus } from '@svc/contracts';
import type { ItemRow, IndexRow } from './items.repository.js';
import type { LibraryCounts, LibraryRow, SourceRow } from '../libraries/libraries.repository.js';
import type { ScanRow } from '../scan/scans.repository.js';
import { imageUrl } from './image-route.js';

export function toScanStatus(row: ScanRow): ScanStatus {
  return {
    id: row.id,
    libraryId: row.library_id,
    mode: row.mode,
    trigger: row.trigger,
    scope:
      row.scope_source_id && row.scope_path ? { sourceId: row.scope_source_id, path: row.scope_path } : null,
    state: row.state,
    phase: row.phase,
    filesSeen: row.files_seen,
    filesTotal: row.files_total,
    filesSkipped: row.files_skipped,
    itemsAdded: row.items_added,
    itemsUpdated: row.items_updated,
    itemsRemoved: row.items_removed,
    probeTools: row.probe_tools,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

export function toLibrary(
  row: LibraryRow,
  sources: readonly SourceRow[],
  counts: LibraryCounts | undefined,
  lastScan: ScanRow | undefined,
): Library {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    sources: sources.map((source) => ({
      id: source.id,
      nodeId: source.node_id,
      mountId: source.mount_id,
      path: source.path,
    })),
    counts: counts ?? { movies: 0, series: 0, seasons: 0, episodes: 0 },
    lastScan: lastScan ? toScanStatus(lastScan) : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Local artwork through the media service's image route; a provider poster when there is no local one. */
export function imagesOf(row: Pick<IndexRow, 'id' | 'images' | 'provider_poster_url'>): MediaImages {
  const images: MediaImages = {};
  for (const type of ['poster', 'fanart', 'thumb'] as const) {
    if (row.images[type]) images[type] = { url: imageUrl(row.id, type), source: 'local' };
  }
  if (!images.poster && row.provider_poster_url)
    images.poster = { url: row.provider_poster_url, source: 'provider' };
  return images;
}

export function toItemSummary(row: ItemRow): MediaItemSummary {
  return {
    id: row.id,
    libraryId: row.library_id,
    kind: row.kind,
    parentId: row.parent_id,
    seriesId: row.series_id,
    title: row.title,
    originalTitle: row.original_title,
    year: row.year,
    releaseDate: row.release_date,
    seasonNumber: row.season_number,
    episodeNumber: row.episode_number,
    episodeNumberEnd: row.episode_number_end,
    tmdbId: row.tmdb_id,
    imdbId: row.imdb_id,
    images: imagesOf(row),
    addedAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
