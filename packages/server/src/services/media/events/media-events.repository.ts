import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { MediaDatabase, MediaEventsTable } from '../media.db.js';

export type MediaEventRow = Selectable<MediaEventsTable>;
export type NewMediaEvent = Insertable<MediaEventsTable>;

/** The event as the outbound webhook templates see it ({{event.id}}, {{media.title}}, …). */
export interface MediaEventPayload {
  event: { id: string; type: string; occurredAt: string };
  library: { id: string; name: string };
  media: {
    id: string;
    type: 'movie' | 'series';
    title: string;
    originalTitle: string | null;
    year: number | null;
    releaseDate: string | null;
    tmdbId: string | null;
    imdbId: string | null;
    posterPath: string | null;
    posterUrl: string | null;
    overview: string | null;
  };
  episode: { seasonNumber: number | null; episodeNumber: number | null; name: string | null };
  item: { sourceItemId: string; name: string };
  summary: { newTitles: number; newItems: number };
}

export const MEDIA_ADDED = 'media.added';

export function toEventPayload(row: MediaEventRow): MediaEventPayload {
  return {
    event: { id: row.id, type: row.type, occurredAt: row.occurred_at.toISOString() },
    library: { id: row.library_id, name: row.library_name },
    media: {
      id: row.media_id,
      type: row.media_type,
      title: row.media_title,
      originalTitle: row.media_original_title,
      year: row.media_year,
      releaseDate: row.media_release_date,
      tmdbId: row.media_tmdb_id,
      imdbId: row.media_imdb_id,
      posterPath: row.media_poster_path,
      posterUrl: row.media_poster_url,
      overview: row.media_overview,
    },
    episode: {
      seasonNumber: row.episode_season_number,
      episodeNumber: row.episode_episode_number,
      name: row.episode_name,
    },
    item: { sourceItemId: row.item_source_item_id, name: row.item_name },
    summary: { newTitles: row.summary_new_titles ?? 0, newItems: row.summary_new_items ?? 0 },
  };
}

/** Media events recorded by scans, waiting for the outbound webhook delivery. */
export class MediaEventsRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async insert(
    db: Kysely<MediaDatabase> | Transaction<MediaDatabase>,
    events: readonly NewMediaEvent[],
  ): Promise<void> {
    if (events.length === 0) return;
    await db
      .insertInto('media_events')
      .values([...events])
      .execute();
  }

  /**
   * Completes the events of a scan with the scan's summary (new items; distinct titles among them) and so
   * makes them ready for delivery.
   */
  async completeScan(scanId: string): Promise<{ newTitles: number; newItems: number }> {
    const totals = await this.db
      .selectFrom('media_events')
      .select((eb) => [
        eb.fn.countAll<number>().as('items'),
        eb.fn.count<number>('media_id').distinct().as('titles'),
      ])
      .where('scan_id', '=', scanId)
      .executeTakeFirst();
    const summary = { newTitles: Number(totals?.titles ?? 0), newItems: Number(totals?.items ?? 0) };
    if (summary.newItems > 0) {
      await this.db
        .updateTable('media_events')
        .set({ summary_new_titles: summary.newTitles, summary_new_items: summary.newItems })
        .where('scan_id', '=', scanId)
        .execute();
    }
    return summary;
  }

  /** Events ready for delivery and not delivered yet, oldest first. */
  async listUndelivered(limit = 100): Promise<MediaEventRow[]> {
    return this.db
      .selectFrom('media_events')
      .selectAll()
      .where('delivered_at', 'is', null)
      .where('summary_new_items', 'is not', null)
      .orderBy('occurred_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async markDelivered(ids: readonly string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('media_events').set({ delivered_at: at }).where('id', 'in', ids).execute();
  }
}
