import { posix } from 'node:path';
import type { FastifyReply } from 'fastify';
import type {
  ImageType,
  MediaInfo,
  ListItemsQuery,
  ListItemsResponse,
  MediaItemDetail,
} from '@svc/contracts';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { ItemsRepository } from './items.repository.js';
import type { LibrariesRepository } from '../libraries/libraries.repository.js';
import { toItemSummary } from './media-mappers.js';
import { resizeImage, wantsVariant, type ImageVariant } from './image-resize.js';
import {
  StorageNotFoundError,
  StorageUnavailableError,
  type StorageGateway,
} from '../storage/storage-gateway.js';

const IMAGE_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

/** Headers of the storage node's answer that are passed on with an image. */
const PASSED_HEADERS = ['content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

/** Items of the libraries: listing, detail and local artwork. */
export class ItemsService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly libraries: LibrariesRepository,
    private readonly storage: StorageGateway,
  ) {}

  async list(libraryId: string, query: ListItemsQuery): Promise<ListItemsResponse> {
    if (!(await this.libraries.get(libraryId))) throw notFound('library');
    const { rows, total } = await this.items.list(libraryId, query);
    return { items: rows.map(toItemSummary), total, page: query.page, pageSize: query.pageSize };
  }

  async get(id: string): Promise<MediaItemDetail> {
    const row = await this.items.get(id);
    if (!row) throw notFound('item');
    const above = [...new Set([row.series_id, row.parent_id])].filter(
      (id): id is string => id !== null && id !== row.id,
    );
    const [library, sources, children, ancestors] = await Promise.all([
      this.libraries.get(row.library_id),
      this.libraries.sourcesOf([row.library_id]),
      row.kind === 'series' || row.kind === 'season' ? this.items.children(row.id) : Promise.resolve([]),
      Promise.all(above.map((ancestorId) => this.items.get(ancestorId))),
    ]);
    const source = sources.find((candidate) => candidate.id === row.source_id);
    const isFile = row.kind === 'movie' || row.kind === 'episode';
    return {
      ...toItemSummary(row),
      library: { id: row.library_id, name: library?.name ?? '' },
      overview: row.overview,
      path: row.path,
      file:
        isFile && source
          ? {
              nodeId: source.node_id,
              mountId: source.mount_id,
              path: row.path,
              size: row.file_size,
              mtime: row.file_mtime?.toISOString() ?? null,
            }
          : null,
      mediaInfo: row.media_info,
      subtitles: row.subtitles,
      children: children.map(toItemSummary),
      ancestors: ancestors
        .filter((ancestor) => ancestor !== undefined)
        .map((ancestor) => ({ id: ancestor.id, kind: ancestor.kind, title: ancestor.title })),
    };
  }

  /**
   * Technical metadata a play-agent probed during playback: kept only where the item has none and its file
   * still has `size` bytes (a replaced file waits for the next scan).
   */
  async fillMediaInfo(id: string, size: number, mediaInfo: MediaInfo): Promise<{ stored: boolean }> {
    if (!(await this.items.get(id))) throw notFound('item');
    return { stored: await this.items.fillMediaInfo(id, size, JSON.stringify(mediaInfo)) };
  }

  /** Streams a local artwork file of an item from its storage node (a Range header is passed on). */
  async sendImage(
    id: string,
    type: ImageType,
    range: string | undefined,
    reply: FastifyReply,
    variant: ImageVariant = {},
  ): Promise<FastifyReply> {
    const resize = wantsVariant(variant);
    const row = await this.items.get(id);
    if (!row) throw notFound('item');
    const image = row.images[type];
    if (!image) throw notFound(`${type} image`);
    const source = (await this.libraries.sourcesOf([row.library_id])).find((s) => s.id === row.source_id);
    if (!source) throw notFound(`${type} image`);
    let file;
    try {
      file = await this.storage.openFile(source.node_id, source.mount_id, image.path, {
        range: resize ? undefined : range,
      });
    } catch (error) {
      if (error instanceof StorageNotFoundError) throw notFound(`${type} image`);
      if (error instanceof StorageUnavailableError) {
        throw new AppError(503, 'UPSTREAM_UNAVAILABLE', `storage node ${source.node_id} is not available`);
      }
      throw error;
    }
    if (resize) {
      const resized = await resizeImage(file.body as AsyncIterable<Buffer>, variant);
      reply.header('content-type', resized.contentType);
      reply.header('cache-control', 'private, max-age=3600');
      return reply.send(resized.bytes);
    }
    const ext = posix.extname(image.path).slice(1).toLowerCase();
    reply.status(file.statusCode === 206 ? 206 : 200);
    reply.header('content-type', IMAGE_TYPES[ext] ?? 'application/octet-stream');
    for (const name of PASSED_HEADERS) {
      const value = file.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    reply.header('cache-control', 'private, max-age=3600');
    return reply.send(file.body);
  }
}
