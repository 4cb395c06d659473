import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { ListItemsQuery } from '@svc/contracts';
import type { MediaDatabase, MediaItemsTable } from '../media.db.js';

export type ItemRow = Selectable<MediaItemsTable>;
export type NewItemRow = Insertable<MediaItemsTable>;
export type ItemPatch = Updateable<MediaItemsTable>;
/** What a scan needs of the items it already has, without the heavy columns. */
export type IndexRow = Omit<ItemRow, 'media_info' | 'subtitles'>;

type Db = Kysely<MediaDatabase> | Transaction<MediaDatabase>;

const SORT_COLUMNS = {
  title: 'sort_title',
  year: 'year',
  releaseDate: 'release_date',
  addedAt: 'created_at',
} as const;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Media items: movies, series, seasons and episodes of the libraries. */
export class ItemsRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async list(libraryId: string, query: ListItemsQuery): Promise<{ rows: ItemRow[]; total: number }> {
    let base = this.db.selectFrom('media_items').where('library_id', '=', libraryId);
    if (query.parentId) base = base.where('parent_id', '=', query.parentId);
    if (query.kind) base = base.where('kind', '=', query.kind);
    if (!query.kind && !query.parentId) base = base.where('kind', 'in', ['movie', 'series']);
    if (query.search) {
      const pattern = `%${escapeLike(query.search)}%`;
      base = base.where((eb) =>
        eb.or([eb('title', 'ilike', pattern), eb('original_title', 'ilike', pattern)]),
      );
    }
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    let ordered = base.selectAll();
    const direction = query.order;
    const nested = query.parentId !== undefined || query.kind === 'season' || query.kind === 'episode';
    if (nested && query.sort === 'title') {
      ordered = ordered
        .orderBy('season_number', (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast())
        .orderBy('episode_number', (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast());
    }
    ordered = ordered
      .orderBy(SORT_COLUMNS[query.sort], (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast())
      .orderBy('sort_title')
      .orderBy('id');
    const rows = await ordered
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();
    return { rows, total: Number(counted?.total ?? 0) };
  }

  async get(id: string): Promise<ItemRow | undefined> {
    return this.db.selectFrom('media_items').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async children(parentId: string): Promise<ItemRow[]> {
    return this.db
      .selectFrom('media_items')
      .selectAll()
      .where('parent_id', '=', parentId)
      .orderBy('season_number', (ob) => ob.asc().nullsLast())
      .orderBy('episode_number', (ob) => ob.asc().nullsLast())
      .orderBy('sort_title')
      .execute();
  }

  /** Every item of a source, for a scan to compare with what it finds. */
  async indexForSource(sourceId: string): Promise<IndexRow[]> {
    return this.db
      .selectFrom('media_items')
      .select([
        'id',
        'library_id',
        'source_id',
        'kind',
        'parent_id',
        'series_id',
        'item_key',
        'path',
        'title',
        'sort_title',
        'original_title',
        'year',
        'release_date',
        'overview',
        'tmdb_id',
        'imdb_id',
        'season_number',
        'episode_number',
        'episode_number_end',
        'file_size',
        'file_mtime',
        'sidecar_sig',
        'images',
        'provider_poster_path',
        'provider_poster_url',
        'created_at',
        'updated_at',
      ])
      .where('source_id', '=', sourceId)
      .execute();
  }

  async insert(db: Db, row: NewItemRow): Promise<void> {
    await db.insertInto('media_items').values(row).execute();
  }

  async insertMany(db: Db, rows: readonly NewItemRow[]): Promise<void> {
    if (rows.length > 0)
      await db
        .insertInto('media_items')
        .values([...rows])
        .execute();
  }

  async update(db: Db, id: string, patch: ItemPatch): Promise<void> {
    await db.updateTable('media_items').set(patch).where('id', '=', id).execute();
  }

  /** Fills in media_info of a file item that has none, while its file still has `size` bytes. */
  async fillMediaInfo(id: string, size: number, mediaInfo: string): Promise<boolean> {
    const result = await this.db
      .updateTable('media_items')
      .set({ media_info: mediaInfo })
      .where('id', '=', id)
      .where('file_size', '=', size)
      .where('media_info', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteIds(ids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let start = 0; start < ids.length; start += 500) {
      const result = await this.db
        .deleteFrom('media_items')
        .where('id', 'in', ids.slice(start, start + 500))
        .executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  }

  /** Removes seasons without episodes, then series without seasons, of a source. */
  async deleteEmptyContainers(sourceId: string): Promise<number> {
    const seasons = await this.db
      .deleteFrom('media_items as s')
      .where('s.source_id', '=', sourceId)
      .where('s.kind', '=', 'season')
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('media_items as e').select('e.id').whereRef('e.parent_id', '=', 's.id')),
        ),
      )
      .executeTakeFirst();
    const series = await this.db
      .deleteFrom('media_items as s')
      .where('s.source_id', '=', sourceId)
      .where('s.kind', '=', 'series')
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('media_items as c').select('c.id').whereRef('c.parent_id', '=', 's.id')),
        ),
      )
      .executeTakeFirst();
    return Number(seasons.numDeletedRows) + Number(series.numDeletedRows);
  }
}
