import type { FastifyReply } from 'fastify';
import {
  containerName,
  IMAGE_TYPES,
  type Identity,
  type ImageType,
  type PortalEpisode,
  type PortalFile,
  type PortalItem,
  type PortalItemDetail,
  type PortalItemsQuery,
  type PortalItemsResponse,
  type PortalLibrariesResponse,
  type PortalSeason,
} from '@svc/contracts';
import { notFound } from '../../../platform/http/errors.js';
import type { ItemRow, ItemsRepository } from '../items/items.repository.js';
import type { ItemsService } from '../items/items.service.js';
import type { LibrariesRepository } from '../libraries/libraries.repository.js';
import { allowsLibrary, type LibraryAccessResolver } from '../libraries/library-access.js';
import type { StoredImages } from '../media.db.js';
import type { PlaybackCatalogRepository } from '../playback/playback-catalog.repository.js';
import type { PortalItemRow, PortalRepository } from './portal.repository.js';

/** A uuid in its dashed form or the compact 32-hex form the play-agent hands out. */
const ITEM_ID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i;

/** The item id (dashed, lower case) of a path parameter, or null when it cannot name an item. */
export function portalItemId(value: string): string | null {
  const match = ITEM_ID.exec(value.trim());
  return match ? match.slice(1, 6).join('-').toLowerCase() : null;
}

/**
 * The id the play-agent gives the item in its DTOs (`Id`): the uuid without dashes, in lower case. Must stay
 * the same as the play-agent's `toProtocolId` (play-agent/proto-a/ids.ts); the portal test plays through it.
 */
export const playbackItemIdOf = (id: string): string => id.replace(/-/g, '').toLowerCase();

const imageTypesOf = (images: StoredImages): ImageType[] => IMAGE_TYPES.filter((type) => images[type]);

/** The container name the play-agent uses for a file (`containerOf` in play-agent/proto-a/dto.ts). */
function containerOf(row: Pick<ItemRow, 'path' | 'media_info'>): string {
  return containerName(row.media_info?.container, row.path) ?? 'bin';
}

function toPortalItem(row: PortalItemRow): PortalItem {
  return {
    id: row.id,
    libraryId: row.library_id,
    name: row.title,
    type: row.kind,
    year: row.year,
    overview: row.overview,
    hasPoster: Boolean(row.images.poster),
    runtime: row.kind === 'movie' || row.kind === 'episode' ? row.runtime : null,
    playbackItemId: playbackItemIdOf(row.id),
  };
}

function toEpisode(row: PortalItemRow): PortalEpisode {
  return {
    id: row.id,
    name: row.title,
    seasonNumber: row.season_number,
    episodeNumber: row.episode_number,
    episodeNumberEnd: row.episode_number_end,
    overview: row.overview,
    runtime: row.runtime,
    imageTypes: imageTypesOf(row.images),
    playbackItemId: playbackItemIdOf(row.id),
  };
}

function toFile(row: ItemRow): PortalFile {
  const info = row.media_info;
  return {
    container: containerOf(row),
    format: info?.container ?? null,
    size: row.file_size ?? info?.size ?? null,
    durationSeconds: info?.durationSeconds ?? null,
    bitrate: info?.bitrate ?? null,
    streams: info?.streams ?? [],
    subtitles: row.subtitles.map((subtitle) => ({
      language: subtitle.language,
      format: subtitle.format,
      forced: subtitle.forced,
      default: subtitle.default,
    })),
  };
}

/** Who asks the portal: administrators see every library, other accounts those their library access names. */
export type PortalViewer = Pick<Identity, 'userId' | 'role'>;

/**
 * The user portal's view of the libraries (docs/media.md, "Portal"). An account sees the libraries its
 * library access allows, as through the play-agent's Views; anything in another library is not found.
 */
export class PortalService {
  constructor(
    private readonly portal: PortalRepository,
    private readonly catalog: PlaybackCatalogRepository,
    private readonly libraryRecords: LibrariesRepository,
    private readonly itemRecords: ItemsRepository,
    private readonly items: ItemsService,
    private readonly access: Pick<LibraryAccessResolver, 'forIdentity'>,
  ) {}

  /** The libraries as the play-agent's Views list them (same query, same access). */
  async libraries(viewer: PortalViewer): Promise<PortalLibrariesResponse> {
    const libraries = await this.access.forIdentity(viewer);
    const views = await this.catalog.views();
    return {
      libraries: views
        .filter((view) => allowsLibrary(libraries, view.id))
        .map((view) => ({
          id: view.id,
          name: view.name,
          type: view.type,
          itemCount: view.item_count,
          posterItemId: view.image_item_id,
        })),
    };
  }

  async list(viewer: PortalViewer, query: PortalItemsQuery): Promise<PortalItemsResponse> {
    const libraries = await this.access.forIdentity(viewer);
    if (
      query.libraryId !== undefined &&
      (!allowsLibrary(libraries, query.libraryId) || !(await this.libraryRecords.get(query.libraryId)))
    )
      throw notFound('library');
    const { rows, total } = await this.portal.listTop({
      libraryId: query.libraryId,
      libraries,
      search: query.search,
      type: query.type,
      limit: query.limit,
      offset: query.offset,
    });
    return { items: rows.map(toPortalItem), total, limit: query.limit, offset: query.offset };
  }

  async get(viewer: PortalViewer, rawId: string): Promise<PortalItemDetail> {
    const row = await this.visibleItem(viewer, rawId);
    const isFile = row.kind === 'movie' || row.kind === 'episode';
    const inSeries = row.kind === 'season' || row.kind === 'episode';
    const [series, below] = await Promise.all([
      inSeries && row.series_id ? this.itemRecords.get(row.series_id) : Promise.resolve(undefined),
      row.kind === 'series' || row.kind === 'season'
        ? this.portal.below({ kind: row.kind, id: row.id })
        : Promise.resolve([]),
    ]);
    return {
      ...toPortalItem({ ...row, runtime: row.media_info?.durationSeconds ?? null }),
      originalTitle: row.original_title,
      releaseDate: row.release_date,
      seriesId: inSeries ? row.series_id : null,
      seriesName: series?.title ?? null,
      seasonNumber: inSeries ? row.season_number : null,
      episodeNumber: row.kind === 'episode' ? row.episode_number : null,
      episodeNumberEnd: row.kind === 'episode' ? row.episode_number_end : null,
      imageTypes: imageTypesOf(row.images),
      file: isFile ? toFile(row) : null,
      seasons:
        row.kind === 'series'
          ? this.seasonsOf(below)
          : row.kind === 'season'
            ? [this.season(row, below)]
            : [],
    };
  }

  /** Local artwork, exactly as the console's image route sends it (same code, same headers). */
  async sendImage(
    viewer: PortalViewer,
    rawId: string,
    type: ImageType,
    range: string | undefined,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const row = await this.visibleItem(viewer, rawId);
    return this.items.sendImage(row.id, type, range, reply);
  }

  /** The item, when it exists in a library the viewer may see (else 404, as for no item at all). */
  private async visibleItem(viewer: PortalViewer, rawId: string): Promise<ItemRow> {
    const id = portalItemId(rawId);
    const row = id === null ? undefined : await this.itemRecords.get(id);
    if (!row || !allowsLibrary(await this.access.forIdentity(viewer), row.library_id)) throw notFound('item');
    return row;
  }

  private season(
    row: Pick<PortalItemRow, 'id' | 'title' | 'season_number' | 'images'>,
    episodes: readonly PortalItemRow[],
  ): PortalSeason {
    return {
      id: row.id,
      name: row.title,
      seasonNumber: row.season_number,
      hasPoster: Boolean(row.images.poster),
      playbackItemId: playbackItemIdOf(row.id),
      episodes: episodes.filter((episode) => episode.kind === 'episode').map(toEpisode),
    };
  }

  /** Seasons in season order, each with its episodes (the rows come sorted by season and episode). */
  private seasonsOf(rows: readonly PortalItemRow[]): PortalSeason[] {
    const episodesBySeason = new Map<string, PortalItemRow[]>();
    for (const row of rows) {
      if (row.kind !== 'episode' || row.parent_id === null) continue;
      const list = episodesBySeason.get(row.parent_id) ?? [];
      list.push(row);
      episodesBySeason.set(row.parent_id, list);
    }
    return rows
      .filter((row) => row.kind === 'season')
      .map((season) => this.season(season, episodesBySeason.get(season.id) ?? []));
  }
}
