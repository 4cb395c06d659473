import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { MEDIA_ADDED, type NewMediaEvent } from '../events/media-events.repository.js';
import { imageUrl } from '../items/image-route.js';
import type { LibraryRow } from '../libraries/libraries.repository.js';
import type { StoredImages } from '../media.db.js';
import type { Described } from './item-values.js';
import type { FileRef } from './library-layout.js';

/** The movie or series a new file belongs to, as the event names it. */
export interface AddedMedia {
  id: string;
  type: 'movie' | 'series';
  described: Described;
  images: { poster?: FileRef } | StoredImages;
}

/** The `media.added` event of a new movie or episode file (outbound webhooks deliver it). */
export function mediaAddedEvent(
  at: { scanId: string; library: LibraryRow; now: Date },
  media: AddedMedia,
  episode: { seasonNumber: number; episodeNumber: number; name: string } | null,
  itemId: string,
  filePath: string,
): NewMediaEvent {
  const localPoster = media.images.poster;
  return {
    id: randomUUID(),
    type: MEDIA_ADDED,
    occurred_at: at.now,
    scan_id: at.scanId,
    library_id: at.library.id,
    library_name: at.library.name,
    media_id: media.id,
    media_type: media.type,
    media_title: media.described.title,
    media_original_title: media.described.originalTitle,
    media_year: media.described.year,
    media_release_date: media.described.releaseDate,
    media_tmdb_id: media.described.tmdbId,
    media_imdb_id: media.described.imdbId,
    media_poster_path: media.described.providerPosterPath ?? localPoster?.path ?? null,
    media_poster_url:
      media.described.providerPosterUrl ?? (localPoster ? imageUrl(media.id, 'poster') : null),
    media_overview: media.described.overview,
    episode_season_number: episode?.seasonNumber ?? null,
    episode_episode_number: episode?.episodeNumber ?? null,
    episode_name: episode?.name ?? null,
    item_source_item_id: itemId,
    item_name: posix.basename(filePath),
    summary_new_titles: null,
    summary_new_items: null,
    delivered_at: null,
  };
}
