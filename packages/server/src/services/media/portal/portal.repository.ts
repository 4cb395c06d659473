import { sql, type Kysely } from 'kysely';
import type { MediaItemKind, PortalItemType } from '@svc/contracts';
import type { LibraryFilter } from '../libraries/library-access.js';
import type { MediaDatabase, StoredImages } from '../media.db.js';
import { inLibraries } from '../playback/playback-catalog.repository.js';

/** What the portal's lists show of an item (no paths, no full probe). */
export interface PortalItemRow {
  id: string;
  library_id: string;
  kind: MediaItemKind;
  parent_id: string | null;
  title: string;
  year: number | null;
  overview: string | null;
  season_number: number | null;
  episode_number: number | null;
  episode_number_end: number | null;
  images: StoredImages;
  /** `media_info.durationSeconds`. */
  runtime: number | null;
}

export interface PortalListFilter {
  libraryId?: string;
  /** The libraries the viewer may see. */
  libraries: LibraryFilter;
  search?: string;
  type?: PortalItemType;
  limit: number;
  offset: number;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The portal's queries over the items (the item and the libraries themselves come from their repositories). */
export class PortalRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  private columns() {
    return [
      'mi.id',
      'mi.library_id',
      'mi.kind',
      'mi.parent_id',
      'mi.title',
      'mi.year',
      'mi.overview',
      'mi.season_number',
      'mi.episode_number',
      'mi.episode_number_end',
      'mi.images',
      sql<number | null>`((mi.media_info ->> 'durationSeconds')::float8)`.as('runtime'),
    ] as const;
  }

  /**
   * One page of the movies and series, by sort title, and how many match. The search matches the title or
   * original title, and a series also by the title of any of its episodes.
   */
  async listTop(filter: PortalListFilter): Promise<{ rows: PortalItemRow[]; total: number }> {
    let base = this.db
      .selectFrom('media_items as mi')
      .where('mi.kind', 'in', filter.type ? [filter.type] : ['movie', 'series'])
      .where(inLibraries('mi.library_id', filter.libraries));
    if (filter.libraryId !== undefined) base = base.where('mi.library_id', '=', filter.libraryId);
    const term = filter.search?.trim();
    if (term) {
      const pattern = `%${escapeLike(term)}%`;
      base = base.where((eb) =>
        eb.or([
          eb('mi.title', 'ilike', pattern),
          eb('mi.original_title', 'ilike', pattern),
          eb.and([
            eb('mi.kind', '=', 'series'),
            eb.exists(
              eb
                .selectFrom('media_items as e')
                .select('e.id')
                .whereRef('e.series_id', '=', 'mi.id')
                .where('e.kind', '=', 'episode')
                .where((inner) =>
                  inner.or([inner('e.title', 'ilike', pattern), inner('e.original_title', 'ilike', pattern)]),
                ),
            ),
          ]),
        ]),
      );
    }
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(counted?.total ?? 0);
    if (filter.offset >= total) return { rows: [], total };
    const rows = await base
      .select(this.columns())
      .orderBy('mi.sort_title')
      .orderBy('mi.id')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return { rows, total };
  }

  /** The seasons and episodes of a series, or the episodes of a season, in (season, episode) order. */
  async below(container: { kind: 'series' | 'season'; id: string }): Promise<PortalItemRow[]> {
    let query = this.db.selectFrom('media_items as mi').select(this.columns());
    query =
      container.kind === 'series'
        ? query.where('mi.series_id', '=', container.id).where('mi.kind', 'in', ['season', 'episode'])
        : query.where('mi.parent_id', '=', container.id).where('mi.kind', '=', 'episode');
    return query
      .orderBy('mi.season_number', (ob) => ob.asc().nullsLast())
      .orderBy('mi.episode_number', (ob) => ob.asc().nullsLast())
      .orderBy('mi.sort_title')
      .orderBy('mi.id')
      .execute();
  }
}
