import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { LibraryType, MediaItemKind, PlaybackItemKind, PlaybackSortField } from '@svc/contracts';
import type { ItemRow } from '../items/items.repository.js';
import type { LibraryFilter } from '../libraries/library-access.js';
import type { MediaDatabase } from '../media.db.js';

/** Which items a catalogue query looks at before its filters. */
export type CatalogScope =
  /** Movies and series of every library. */
  | { kind: 'top' }
  /** Every item of every library. */
  | { kind: 'all' }
  /** Movies and series of a library; every item of it when recursive. */
  | { kind: 'library'; libraryId: string; recursive: boolean }
  /** Seasons of a series; seasons and episodes when recursive. */
  | { kind: 'series'; seriesId: string; recursive: boolean }
  /** Episodes of a season. */
  | { kind: 'season'; seasonId: string };

/** A condition on a library id column: true for every library (null), else membership (none: false). */
export function inLibraries(column: string, libraries: LibraryFilter): RawBuilder<SqlBool> {
  if (libraries === null) return sql<SqlBool>`true`;
  if (libraries.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`${sql.ref(column)} IN (${sql.join([...libraries])})`;
}

export interface CatalogFilter {
  userId: string;
  /** The libraries the user may see (every query is limited to them). */
  libraries: LibraryFilter;
  scope: CatalogScope;
  includeKinds?: readonly PlaybackItemKind[];
  excludeKinds?: readonly PlaybackItemKind[];
  /** Only these items (valid uuids). */
  ids?: readonly string[];
  searchTerm?: string;
  isPlayed?: boolean;
  isFavorite?: boolean;
  isResumable?: boolean;
  /** Seasons and episodes of this series (a valid uuid). */
  seriesId?: string;
  /** Episodes of this season number. */
  seasonNumber?: number;
  years?: readonly number[];
}

export interface CatalogOrder {
  sortBy: readonly PlaybackSortField[];
  sortOrder: 'asc' | 'desc';
}

/** An item with the user's row and what the item mapping needs of its series, season and source. */
export type CatalogItemRow = ItemRow & {
  ud_played: boolean | null;
  ud_play_count: number | null;
  ud_is_favorite: boolean | null;
  ud_position_ticks: number | null;
  ud_last_played_at: Date | null;
  series_title: string | null;
  parent_title: string | null;
  node_id: string | null;
  mount_id: string | null;
};

/** Episodes below a series or season, as the user sees them. */
export interface ContainerStats {
  children: number;
  episodes: number;
  playedEpisodes: number;
  lastPlayedAt: Date | null;
}

export interface ViewRow {
  id: string;
  name: string;
  type: LibraryType;
  created_at: Date;
  item_count: number;
  image_item_id: string | null;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The column that links an episode to a series (`series_id`) or to a season (`parent_id`). */
const episodeLink = (container: 'series' | 'season') =>
  sql.ref(container === 'series' ? 'e.series_id' : 'e.parent_id');

/** A series or season counts as played when it has episodes and the user played every one. */
function containerPlayed(userId: string, container: 'series' | 'season'): RawBuilder<boolean> {
  const link = episodeLink(container);
  return sql<boolean>`(
    EXISTS (SELECT 1 FROM media_items e WHERE ${link} = mi.id AND e.kind = 'episode')
    AND NOT EXISTS (
      SELECT 1 FROM media_items e
      WHERE ${link} = mi.id AND e.kind = 'episode'
        AND NOT EXISTS (
          SELECT 1 FROM user_item_data u WHERE u.item_id = e.id AND u.user_id = ${userId} AND u.played
        )
    )
  )`;
}

/** Played, for files from the user's row, for series and seasons from their episodes. */
function playedExpression(userId: string): RawBuilder<boolean> {
  return sql<boolean>`(CASE mi.kind
    WHEN 'series' THEN ${containerPlayed(userId, 'series')}
    WHEN 'season' THEN ${containerPlayed(userId, 'season')}
    ELSE coalesce(ud.played, false) END)`;
}

/**
 * Last played of the series and seasons (`cp`, joined on `mi.id` when sorting by it): the latest of their
 * episodes. Driven by the user's rows, so it stays cheap (and the planner's estimate low) on large libraries.
 */
function containerLastPlayed(userId: string) {
  return sql<{ id: string; last_played_at: Date | null }>`(
    SELECT e.series_id AS id, max(u.last_played_at) AS last_played_at
    FROM user_item_data u JOIN media_items e ON e.id = u.item_id
    WHERE u.user_id = ${userId} AND e.kind = 'episode' AND e.series_id IS NOT NULL
    GROUP BY e.series_id
    UNION ALL
    SELECT e.parent_id, max(u.last_played_at)
    FROM user_item_data u JOIN media_items e ON e.id = u.item_id
    WHERE u.user_id = ${userId} AND e.kind = 'episode' AND e.parent_id IS NOT NULL
    GROUP BY e.parent_id
  )`;
}

/** Last played: of files from the user's row, of series and seasons from `cp`. */
const DATE_PLAYED = sql<Date | null>`(CASE WHEN mi.kind IN ('series', 'season')
  THEN cp.last_played_at ELSE ud.last_played_at END)`;

/** The order keys of a sort field (missing values always sort last). */
function sortKeys(field: PlaybackSortField): RawBuilder<unknown>[] {
  switch (field) {
    case 'name':
      // Seasons and episodes in their numbered order first (as the protocol's sort names do), then the title.
      return [
        sql`(CASE WHEN mi.kind IN ('season', 'episode') THEN mi.season_number END)`,
        sql`(CASE WHEN mi.kind = 'episode' THEN mi.episode_number END)`,
        sql`mi.sort_title`,
      ];
    case 'dateCreated':
      return [sql`mi.created_at`];
    case 'premiereDate':
      return [sql`mi.release_date`];
    case 'year':
      return [sql`mi.year`];
    case 'datePlayed':
      return [DATE_PLAYED];
    case 'index':
      return [
        sql`(CASE mi.kind WHEN 'season' THEN mi.season_number WHEN 'episode' THEN mi.episode_number END)`,
      ];
    case 'parentIndex':
      return [sql`(CASE WHEN mi.kind = 'episode' THEN mi.season_number END)`];
    case 'random':
      return [sql`random()`];
    case 'runtime':
      return [sql`((mi.media_info ->> 'durationSeconds')::float8)`];
  }
}

/** The playback catalogue's queries: the items as a user browses them, with the user's data. */
export class PlaybackCatalogRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  /** What an id names: a library, an item of some kind, or nothing. */
  async resolve(id: string): Promise<'library' | MediaItemKind | undefined> {
    const library = await this.db
      .selectFrom('libraries')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    if (library) return 'library';
    const item = await this.db
      .selectFrom('media_items')
      .select('kind')
      .where('id', '=', id)
      .executeTakeFirst();
    return item?.kind;
  }

  /** Every library with its count of movies and series and its newest item with a local poster. */
  async views(): Promise<ViewRow[]> {
    const rows = await this.db
      .selectFrom('libraries as l')
      .select(['l.id', 'l.name', 'l.type', 'l.created_at'])
      .select(
        sql<number>`(
          SELECT count(*) FROM media_items m WHERE m.library_id = l.id AND m.kind IN ('movie', 'series')
        )`.as('item_count'),
      )
      .select(
        sql<string | null>`(
          SELECT m.id FROM media_items m
          WHERE m.library_id = l.id AND m.kind IN ('movie', 'series') AND (m.images -> 'poster') IS NOT NULL
          ORDER BY m.created_at DESC, m.id LIMIT 1
        )`.as('image_item_id'),
      )
      .orderBy('l.name')
      .orderBy('l.id')
      .execute();
    return rows.map((row) => ({ ...row, item_count: Number(row.item_count) }));
  }

  private filtered(filter: CatalogFilter) {
    const { userId, scope } = filter;
    let query = this.db
      .selectFrom('media_items as mi')
      .leftJoin('user_item_data as ud', (join) =>
        join.onRef('ud.item_id', '=', 'mi.id').on('ud.user_id', '=', userId),
      )
      .where(inLibraries('mi.library_id', filter.libraries));
    switch (scope.kind) {
      case 'top':
        query = query.where('mi.kind', 'in', ['movie', 'series']);
        break;
      case 'all':
        break;
      case 'library':
        query = query.where('mi.library_id', '=', scope.libraryId);
        if (!scope.recursive) query = query.where('mi.kind', 'in', ['movie', 'series']);
        break;
      case 'series':
        query = scope.recursive
          ? query.where('mi.series_id', '=', scope.seriesId)
          : query.where('mi.parent_id', '=', scope.seriesId);
        break;
      case 'season':
        query = query.where('mi.parent_id', '=', scope.seasonId);
        break;
    }
    if (filter.includeKinds && filter.includeKinds.length > 0)
      query = query.where('mi.kind', 'in', [...filter.includeKinds]);
    if (filter.excludeKinds && filter.excludeKinds.length > 0)
      query = query.where('mi.kind', 'not in', [...filter.excludeKinds]);
    if (filter.ids)
      query =
        filter.ids.length > 0
          ? query.where('mi.id', 'in', [...filter.ids])
          : query.where(sql<SqlBool>`false`);
    const term = filter.searchTerm?.trim();
    if (term) {
      const pattern = `%${escapeLike(term)}%`;
      query = query.where((eb) =>
        eb.or([eb('mi.title', 'ilike', pattern), eb('mi.original_title', 'ilike', pattern)]),
      );
    }
    if (filter.isPlayed !== undefined) {
      const played = playedExpression(userId);
      query = query.where(filter.isPlayed ? sql<SqlBool>`${played}` : sql<SqlBool>`NOT ${played}`);
    }
    if (filter.isFavorite !== undefined)
      query = query.where(sql<SqlBool>`coalesce(ud.is_favorite, false) = ${filter.isFavorite}`);
    if (filter.isResumable !== undefined) {
      const resumable = sql<SqlBool>`(mi.kind IN ('movie', 'episode')
        AND coalesce(ud.position_ticks, 0) > 0 AND NOT coalesce(ud.played, false))`;
      query = query.where(filter.isResumable ? resumable : sql<SqlBool>`NOT ${resumable}`);
    }
    if (filter.seriesId !== undefined) query = query.where('mi.series_id', '=', filter.seriesId);
    if (filter.seasonNumber !== undefined)
      query = query.where('mi.kind', '=', 'episode').where('mi.season_number', '=', filter.seasonNumber);
    if (filter.years)
      query =
        filter.years.length > 0
          ? query.where('mi.year', 'in', [...filter.years])
          : query.where(sql<SqlBool>`false`);
    return query;
  }

  /** The ids of one page of the matching items, in order, and how many match in all. */
  async query(
    filter: CatalogFilter,
    order: CatalogOrder,
    page: { startIndex: number; limit: number },
  ): Promise<{ ids: string[]; total: number }> {
    const base = this.filtered(filter);
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(counted?.total ?? 0);
    if (page.limit === 0 || page.startIndex >= total) return { ids: [], total };
    let ordered = base.select('mi.id');
    if (order.sortBy.includes('datePlayed')) {
      // Only raw expressions refer to cp, so the builder's type need not know the join.
      ordered = base
        .leftJoin(containerLastPlayed(filter.userId).as('cp'), (join) => join.onRef('cp.id', '=', 'mi.id'))
        .select('mi.id');
    }
    for (const field of order.sortBy) {
      for (const key of sortKeys(field)) {
        ordered = ordered.orderBy(key, (ob) =>
          (order.sortOrder === 'desc' ? ob.desc() : ob.asc()).nullsLast(),
        );
      }
    }
    const rows = await ordered
      .orderBy('mi.sort_title')
      .orderBy('mi.id')
      .limit(page.limit)
      .offset(page.startIndex)
      .execute();
    return { ids: rows.map((row) => row.id), total };
  }

  /**
   * The items with the user's data, their series and season titles and their source (any order); items
   * outside the user's libraries are left out.
   */
  async load(userId: string, ids: readonly string[], libraries: LibraryFilter): Promise<CatalogItemRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('media_items as mi')
      .leftJoin('user_item_data as ud', (join) =>
        join.onRef('ud.item_id', '=', 'mi.id').on('ud.user_id', '=', userId),
      )
      .leftJoin('media_items as s', 's.id', 'mi.series_id')
      .leftJoin('media_items as p', 'p.id', 'mi.parent_id')
      .leftJoin('library_sources as src', 'src.id', 'mi.source_id')
      .selectAll('mi')
      .select([
        'ud.played as ud_played',
        'ud.play_count as ud_play_count',
        'ud.is_favorite as ud_is_favorite',
        'ud.position_ticks as ud_position_ticks',
        'ud.last_played_at as ud_last_played_at',
        's.title as series_title',
        'p.title as parent_title',
        'src.node_id as node_id',
        'src.mount_id as mount_id',
      ])
      .where('mi.id', 'in', [...ids])
      .where(inLibraries('mi.library_id', libraries))
      .execute();
  }

  /** Children, episodes and the user's played episodes of series and seasons. */
  async containerStats(
    userId: string,
    containers: readonly { id: string; kind: 'series' | 'season' }[],
  ): Promise<Map<string, ContainerStats>> {
    const stats = new Map<string, ContainerStats>();
    for (const container of containers)
      stats.set(container.id, { children: 0, episodes: 0, playedEpisodes: 0, lastPlayedAt: null });
    const seriesIds = containers.filter((c) => c.kind === 'series').map((c) => c.id);
    const seasonIds = containers.filter((c) => c.kind === 'season').map((c) => c.id);

    const episodesBy = async (column: 'series_id' | 'parent_id', ids: string[]) => {
      if (ids.length === 0) return;
      const rows = await this.db
        .selectFrom('media_items as e')
        .leftJoin('user_item_data as u', (join) =>
          join.onRef('u.item_id', '=', 'e.id').on('u.user_id', '=', userId),
        )
        .select([
          `e.${column} as container_id`,
          (eb) => eb.fn.countAll<number>().as('episodes'),
          sql<number>`count(*) FILTER (WHERE u.played)`.as('played'),
          sql<Date | null>`max(u.last_played_at)`.as('last_played_at'),
        ])
        .where('e.kind', '=', 'episode')
        .where(`e.${column}`, 'in', ids)
        .groupBy(`e.${column}`)
        .execute();
      for (const row of rows) {
        const entry = row.container_id ? stats.get(row.container_id) : undefined;
        if (!entry) continue;
        entry.episodes = Number(row.episodes);
        entry.playedEpisodes = Number(row.played);
        entry.lastPlayedAt = row.last_played_at;
        // A season's children are its episodes.
        if (column === 'parent_id') entry.children = entry.episodes;
      }
    };
    await episodesBy('series_id', seriesIds);
    await episodesBy('parent_id', seasonIds);
    if (seriesIds.length > 0) {
      const seasons = await this.db
        .selectFrom('media_items')
        .select(['parent_id', (eb) => eb.fn.countAll<number>().as('seasons')])
        .where('kind', '=', 'season')
        .where('parent_id', 'in', seriesIds)
        .groupBy('parent_id')
        .execute();
      for (const row of seasons) {
        const entry = row.parent_id ? stats.get(row.parent_id) : undefined;
        if (entry) entry.children = Number(row.seasons);
      }
    }
    return stats;
  }

  /**
   * Latest entries, newest first: movies by the time they were added and series by the time of their
   * newest episode (one entry per series), of one library or all.
   */
  async latest(options: {
    libraryId?: string;
    libraries: LibraryFilter;
    movies: boolean;
    series: boolean;
    limit: number;
  }): Promise<{ ids: string[]; total: number }> {
    const movies = this.db
      .selectFrom('media_items as m')
      .select([sql<string>`m.id`.as('id'), sql<Date>`m.created_at`.as('latest')])
      .where('m.kind', '=', 'movie')
      .where(inLibraries('m.library_id', options.libraries))
      .$if(options.libraryId !== undefined, (q) => q.where('m.library_id', '=', options.libraryId!));
    const series = this.db
      .selectFrom('media_items as e')
      .select([sql<string>`e.series_id`.as('id'), sql<Date>`max(e.created_at)`.as('latest')])
      .where('e.kind', '=', 'episode')
      .where('e.series_id', 'is not', null)
      .where(inLibraries('e.library_id', options.libraries))
      .$if(options.libraryId !== undefined, (q) => q.where('e.library_id', '=', options.libraryId!))
      .groupBy('e.series_id');
    const entries =
      options.movies && options.series ? movies.unionAll(series) : options.movies ? movies : series;
    if (!options.movies && !options.series) return { ids: [], total: 0 };
    const counted = await this.db
      .selectFrom(entries.as('t'))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirst();
    const rows = await this.db
      .selectFrom(entries.as('t'))
      .select('t.id')
      .orderBy('t.latest', 'desc')
      .orderBy('t.id')
      .limit(options.limit)
      .execute();
    return { ids: rows.map((row) => row.id), total: Number(counted?.total ?? 0) };
  }

  /**
   * Next up, newest activity first: per series with a played episode, the first unplayed episode after
   * the last played one in (season, episode) order.
   */
  async nextUp(userId: string, seriesId: string | undefined, libraries: LibraryFilter): Promise<string[]> {
    const onlySeries = seriesId === undefined ? sql`` : sql`AND e.series_id = ${seriesId}`;
    // A series' episodes share its library, so limiting the watched series is enough.
    const visible = inLibraries('e.library_id', libraries);
    const result = await sql<{ id: string }>`
      WITH watched AS (
        SELECT DISTINCT ON (e.series_id)
          e.series_id,
          coalesce(e.season_number, 0) AS season,
          coalesce(e.episode_number_end, e.episode_number, 0) AS episode
        FROM media_items e
        JOIN user_item_data u ON u.item_id = e.id AND u.user_id = ${userId} AND u.played
        WHERE e.kind = 'episode' AND e.series_id IS NOT NULL AND ${visible} ${onlySeries}
        ORDER BY e.series_id, 2 DESC, 3 DESC
      ),
      activity AS (
        SELECT e.series_id, max(u.last_played_at) AS last_played_at
        FROM media_items e
        JOIN user_item_data u ON u.item_id = e.id AND u.user_id = ${userId}
        WHERE e.kind = 'episode' AND e.series_id IN (SELECT series_id FROM watched)
        GROUP BY e.series_id
      )
      SELECT n.id
      FROM watched w
      JOIN activity a ON a.series_id = w.series_id
      CROSS JOIN LATERAL (
        SELECT n.id FROM media_items n
        WHERE n.series_id = w.series_id AND n.kind = 'episode'
          AND (coalesce(n.season_number, 0), coalesce(n.episode_number, 0)) > (w.season, w.episode)
          AND NOT EXISTS (
            SELECT 1 FROM user_item_data nu WHERE nu.item_id = n.id AND nu.user_id = ${userId} AND nu.played
          )
        ORDER BY coalesce(n.season_number, 0), coalesce(n.episode_number, 0), n.sort_title, n.id
        LIMIT 1
      ) n
      ORDER BY a.last_played_at DESC NULLS LAST, n.id
    `.execute(this.db);
    return result.rows.map((row) => row.id);
  }
}
