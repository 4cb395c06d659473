import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import {
  playbackItemKindSchema,
  type MediaItemKind,
  type PlaybackImageType,
  type PlaybackItem,
  type PlaybackItemKind,
  type PlaybackItemsResponse,
  type PlaybackUserData,
  type PlaybackUserDataUpdate,
  type PlaybackViewsResponse,
  type playbackItemsQuerySchema,
  type playbackLatestQuerySchema,
  type playbackNextUpQuerySchema,
  type playbackResumeQuerySchema,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { errorCode } from '../../../platform/db/errors.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import type { ItemsService } from '../items/items.service.js';
import {
  allowsLibrary,
  type LibraryAccessResolver,
  type LibraryFilter,
} from '../libraries/library-access.js';
import type {
  CatalogFilter,
  CatalogItemRow,
  CatalogScope,
  ContainerStats,
  PlaybackCatalogRepository,
} from './playback-catalog.repository.js';
import type { UserItemDataRepository } from './user-item-data.repository.js';
import type { ImageVariant } from '../items/image-resize.js';
import type { PlaybackMediaInfoUpdate } from '@svc/contracts';

type ItemsQuery = z.output<typeof playbackItemsQuerySchema>;
type LatestQuery = z.output<typeof playbackLatestQuerySchema>;
type ResumeQuery = z.output<typeof playbackResumeQuerySchema>;
type NextUpQuery = z.output<typeof playbackNextUpQuerySchema>;

/** Ids are uuids; anything else names nothing (and must not reach a uuid column). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (value: string) => UUID.test(value);

const EMPTY: PlaybackItemsResponse = { items: [], totalRecordCount: 0, startIndex: 0 };

/** A short tag that changes when the image does: its file (path, size, time). */
function imageTag(image: { path: string; size: number; mtime: string }): string {
  return createHash('sha256')
    .update(`${image.path}\n${image.size}\n${image.mtime}`)
    .digest('hex')
    .slice(0, 16);
}

function toUserData(row: CatalogItemRow, stats: ContainerStats | undefined): PlaybackUserData {
  const base = {
    playCount: row.ud_play_count ?? 0,
    isFavorite: row.ud_is_favorite ?? false,
    playbackPositionTicks: row.ud_position_ticks ?? 0,
  };
  if (stats) {
    return {
      ...base,
      played: stats.episodes > 0 && stats.playedEpisodes === stats.episodes,
      lastPlayedAt: stats.lastPlayedAt?.toISOString() ?? null,
      unplayedItemCount: stats.episodes - stats.playedEpisodes,
    };
  }
  return {
    ...base,
    played: row.ud_played ?? false,
    lastPlayedAt: row.ud_last_played_at?.toISOString() ?? null,
    unplayedItemCount: null,
  };
}

export function toPlaybackItem(row: CatalogItemRow, stats: ContainerStats | undefined): PlaybackItem {
  const isFile = row.kind === 'movie' || row.kind === 'episode';
  const imageTags: PlaybackItem['imageTags'] = {};
  for (const type of ['poster', 'fanart', 'thumb'] as const) {
    const image = row.images[type];
    if (image) imageTags[type] = imageTag(image);
  }
  return {
    id: row.id,
    libraryId: row.library_id,
    kind: row.kind,
    name: row.title,
    originalTitle: row.original_title,
    sortName: row.sort_title,
    overview: row.overview,
    year: row.year,
    premiereDate: row.release_date ? `${row.release_date}T00:00:00.000Z` : null,
    // Movies and series sit in their library (the view); seasons in their series, episodes in their season.
    parentId: row.kind === 'movie' || row.kind === 'series' ? row.library_id : row.parent_id,
    seriesId: row.kind === 'season' || row.kind === 'episode' ? row.series_id : null,
    seriesName: row.kind === 'season' || row.kind === 'episode' ? row.series_title : null,
    seasonId: row.kind === 'episode' ? row.parent_id : null,
    seasonName: row.kind === 'episode' ? row.parent_title : null,
    indexNumber:
      row.kind === 'episode' ? row.episode_number : row.kind === 'season' ? row.season_number : null,
    indexNumberEnd: row.kind === 'episode' ? row.episode_number_end : null,
    parentIndexNumber: row.kind === 'episode' ? row.season_number : null,
    childCount: stats ? stats.children : null,
    recursiveItemCount: stats ? stats.episodes : null,
    dateCreated: row.created_at.toISOString(),
    providerIds: { tmdb: row.tmdb_id, imdb: row.imdb_id },
    imageTags,
    userData: toUserData(row, stats),
    file:
      isFile && row.node_id !== null && row.mount_id !== null
        ? {
            nodeId: row.node_id,
            mountId: row.mount_id,
            path: row.path,
            size: row.file_size,
            mtime: row.file_mtime?.toISOString() ?? null,
            mediaInfo: row.media_info,
            subtitles: row.subtitles,
          }
        : null,
  };
}

/**
 * The catalogue as the play-agent browses it for a user (docs/media.md, "Playback catalogue"): views,
 * item queries, latest, resume, next up, the user's data and the images.
 */
export class PlaybackCatalogService {
  constructor(
    private readonly catalog: PlaybackCatalogRepository,
    private readonly userData: UserItemDataRepository,
    private readonly items: ItemsService,
    private readonly clock: Clock,
    private readonly access: Pick<LibraryAccessResolver, 'forUser'>,
  ) {}

  /** The libraries the user may see (docs/media.md, "Library access"). */
  async views(userId: string): Promise<PlaybackViewsResponse> {
    const libraries = await this.access.forUser(userId);
    const rows = await this.catalog.views();
    return {
      views: rows
        .filter((row) => allowsLibrary(libraries, row.id))
        .map((row) => ({
          id: row.id,
          name: row.name,
          type: row.type,
          itemCount: row.item_count,
          dateCreated: row.created_at.toISOString(),
          imageItemId: row.image_item_id,
        })),
    };
  }

  /** The scope a parent id gives, or null when it names nothing with children. */
  private async scopeOf(parentId: string | undefined, recursive: boolean): Promise<CatalogScope | null> {
    if (parentId === undefined) return { kind: recursive ? 'all' : 'top' };
    if (!isUuid(parentId)) return null;
    const kind = await this.catalog.resolve(parentId);
    if (kind === 'library') return { kind: 'library', libraryId: parentId, recursive };
    if (kind === 'series') return { kind: 'series', seriesId: parentId, recursive };
    if (kind === 'season') return { kind: 'season', seasonId: parentId };
    return null;
  }

  async query(query: ItemsQuery): Promise<PlaybackItemsResponse> {
    const startIndex = query.startIndex;
    const empty = { ...EMPTY, startIndex };
    // Looking up given ids or a series' episodes searches every library unless a parent says otherwise.
    const wide = query.parentId === undefined && (query.ids !== undefined || query.seriesId !== undefined);
    const scope = wide ? ({ kind: 'all' } as const) : await this.scopeOf(query.parentId, query.recursive);
    if (!scope) return empty;
    if (query.seriesId !== undefined && !isUuid(query.seriesId)) return empty;
    const libraries = await this.access.forUser(query.userId);
    const filter: CatalogFilter = {
      userId: query.userId,
      libraries,
      scope,
      includeKinds: query.includeKinds,
      excludeKinds: query.excludeKinds,
      ids: query.ids?.filter(isUuid),
      searchTerm: query.searchTerm,
      isPlayed: query.isPlayed,
      isFavorite: query.isFavorite,
      isResumable: query.isResumable,
      seriesId: query.seriesId,
      seasonNumber: query.seasonNumber,
      years: query.years,
    };
    const { ids, total } = await this.catalog.query(
      filter,
      { sortBy: query.sortBy, sortOrder: query.sortOrder },
      { startIndex, limit: query.limit },
    );
    return { items: await this.itemsOf(query.userId, ids, libraries), totalRecordCount: total, startIndex };
  }

  /** An item outside the user's libraries is not found, as if it did not exist. */
  async item(id: string, userId: string): Promise<PlaybackItem> {
    const libraries = await this.access.forUser(userId);
    const [item] = isUuid(id) ? await this.itemsOf(userId, [id], libraries) : [];
    if (!item) throw notFound('item');
    return item;
  }

  /**
   * Movies and series (a series dated by its newest episode), newest first; below a series or season,
   * its newest episodes.
   */
  async latest(query: LatestQuery): Promise<PlaybackItemsResponse> {
    const kinds = this.parseKinds(query.kinds);
    const libraries = await this.access.forUser(query.userId);
    if (query.parentId !== undefined) {
      const scope = await this.scopeOf(query.parentId, true);
      if (!scope) return EMPTY;
      if (scope.kind === 'series' || scope.kind === 'season') {
        const { ids, total } = await this.catalog.query(
          { userId: query.userId, libraries, scope, includeKinds: kinds.length > 0 ? kinds : ['episode'] },
          { sortBy: ['dateCreated'], sortOrder: 'desc' },
          { startIndex: 0, limit: query.limit },
        );
        return this.page(query.userId, ids, total, libraries);
      }
    }
    const all = kinds.length === 0;
    const { ids, total } = await this.catalog.latest({
      libraryId: query.parentId,
      libraries,
      movies: all || kinds.includes('movie'),
      series: all || kinds.some((kind) => kind !== 'movie'),
      limit: query.limit,
    });
    return this.page(query.userId, ids, total, libraries);
  }

  /** Movies and episodes with a saved position that are not played, last played first. */
  async resume(query: ResumeQuery): Promise<PlaybackItemsResponse> {
    const scope = await this.scopeOf(query.parentId, true);
    if (!scope) return EMPTY;
    const libraries = await this.access.forUser(query.userId);
    const { ids, total } = await this.catalog.query(
      { userId: query.userId, libraries, scope, includeKinds: ['movie', 'episode'], isResumable: true },
      { sortBy: ['datePlayed'], sortOrder: 'desc' },
      { startIndex: 0, limit: query.limit },
    );
    return this.page(query.userId, ids, total, libraries);
  }

  async nextUp(query: NextUpQuery): Promise<PlaybackItemsResponse> {
    if (query.seriesId !== undefined && !isUuid(query.seriesId)) return EMPTY;
    const libraries = await this.access.forUser(query.userId);
    const all = await this.catalog.nextUp(query.userId, query.seriesId, libraries);
    return this.page(query.userId, all.slice(0, query.limit), all.length, libraries);
  }

  private async page(
    userId: string,
    ids: readonly string[],
    total: number,
    libraries: LibraryFilter,
  ): Promise<PlaybackItemsResponse> {
    return { items: await this.itemsOf(userId, ids, libraries), totalRecordCount: total, startIndex: 0 };
  }

  /**
   * Movies and episodes take the change as `applyUserItemDataChange` says. Series and seasons keep only
   * the favourite flag themselves; `played` goes to every episode below them, and the rest is ignored.
   */
  async updateUserData(update: PlaybackUserDataUpdate): Promise<PlaybackUserData> {
    const kind = isUuid(update.itemId) ? await this.catalog.resolve(update.itemId) : undefined;
    if (kind === undefined || kind === 'library') throw notFound('item');
    // Nothing is written for an item the user may not see.
    await this.item(update.itemId, update.userId);
    try {
      await this.applyUserData(update, kind);
    } catch (error) {
      // The item went away meanwhile (a scan removed it): its rows may not be written.
      if (errorCode(error) === '23503') throw notFound('item');
      throw error;
    }
    return (await this.item(update.itemId, update.userId)).userData;
  }

  private async applyUserData(update: PlaybackUserDataUpdate, kind: MediaItemKind): Promise<void> {
    const now = new Date(this.clock.now());
    const lastPlayedAt = update.lastPlayedAt !== undefined ? new Date(update.lastPlayedAt) : undefined;
    if (kind === 'series' || kind === 'season') {
      if (update.isFavorite !== undefined)
        await this.userData.apply(update.userId, update.itemId, { isFavorite: update.isFavorite }, now);
      // A folder has no position or plays of its own: its played flag is that of its episodes.
      const played = update.replace?.played ?? update.played;
      if (played !== undefined)
        await this.userData.markEpisodes(
          update.userId,
          { id: update.itemId, kind },
          played,
          lastPlayedAt ?? now,
          now,
        );
    } else {
      const replace = update.replace;
      await this.userData.apply(
        update.userId,
        update.itemId,
        {
          played: update.played,
          isFavorite: update.isFavorite,
          positionTicks: update.playbackPositionTicks,
          countPlay: update.countPlay,
          lastPlayedAt,
          ...(replace
            ? {
                replace: {
                  played: replace.played,
                  playCount: replace.playCount,
                  positionTicks: replace.playbackPositionTicks,
                  lastPlayedAt:
                    replace.lastPlayedAt === undefined || replace.lastPlayedAt === null
                      ? replace.lastPlayedAt
                      : new Date(replace.lastPlayedAt),
                },
              }
            : {}),
        },
        now,
      );
    }
  }

  /**
   * Local artwork through the storage node, as the console's image route sends it; 404 for anything else.
   * With a user (the player presented a token), an item outside the user's libraries is not found. A
   * variant (maxWidth, maxHeight, quality) is resized here once; the play-agent caches it.
   */
  async sendImage(
    id: string,
    type: PlaybackImageType,
    range: string | undefined,
    reply: FastifyReply,
    userId: string | undefined,
    variant: ImageVariant = {},
  ): Promise<FastifyReply> {
    if (!isUuid(id)) throw notFound('item');
    if (userId !== undefined) await this.item(id, userId);
    return this.items.sendImage(id, type, range, reply, variant);
  }

  /** Technical metadata a play-agent probed while the file played (ItemsService.fillMediaInfo). */
  async storeMediaInfo(id: string, update: PlaybackMediaInfoUpdate): Promise<{ stored: boolean }> {
    if (!isUuid(id)) throw notFound('item');
    return this.items.fillMediaInfo(id, update.size, update.mediaInfo);
  }

  private parseKinds(kinds: string | undefined): PlaybackItemKind[] {
    if (kinds === undefined) return [];
    const names = kinds
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name.length > 0);
    const parsed: PlaybackItemKind[] = [];
    for (const name of names) {
      const kind = playbackItemKindSchema.safeParse(name);
      if (!kind.success)
        throw badRequest(`kinds: unknown item kind '${name}'`, [
          { path: '/kinds', message: `unknown item kind '${name}'` },
        ]);
      parsed.push(kind.data);
    }
    return parsed;
  }

  /** The items in the order of the ids, with the user's data and the counts of series and seasons. */
  private async itemsOf(
    userId: string,
    ids: readonly string[],
    libraries: LibraryFilter,
  ): Promise<PlaybackItem[]> {
    const rows = await this.catalog.load(userId, ids, libraries);
    const containers = rows.flatMap((row) =>
      row.kind === 'series' || row.kind === 'season' ? [{ id: row.id, kind: row.kind }] : [],
    );
    const stats =
      containers.length > 0
        ? await this.catalog.containerStats(userId, containers)
        : new Map<string, ContainerStats>();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toPlaybackItem(row, stats.get(id))] : [];
    });
  }
}
