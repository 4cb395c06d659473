import { LRUCache } from 'lru-cache';
import { request as undiciRequest } from 'undici';
import { IMAGE_VARIANT_MAX_EDGE, type PlaybackImageType } from '@svc/contracts';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { protoA } from '../proto-a/declarations.js';
import { fromProtocolId } from '../proto-a/ids.js';
import type { ProtocolRoutes } from '../proto-a/protocol.js';
import type { ProtocolQuery } from '../proto-a/query.js';
import type { ImageCache } from './image-cache.js';

const IMAGE_TYPE: Record<string, PlaybackImageType> = {
  primary: 'poster',
  backdrop: 'fanart',
  thumb: 'thumb',
};
/** An artwork file larger than this is refused (posters and backdrops are far smaller). */
const IMAGE_MAX_BYTES = 32 * 1024 * 1024;
/** A signed-in viewer's access to an item is asked again after this long. */
const ACCESS_CACHE_MS = 10_000;
/** Players keep an answer this long; the URL's tag changes with the image, and ETag revalidates. */
const CLIENT_CACHE_CONTROL = 'public, max-age=86400';

/** The variant a player asks for: Emby's maxWidth/maxHeight/quality, bounded like the media service's. */
export function imageVariantOf(query: ProtocolQuery) {
  return {
    maxWidth: query.integer('maxWidth', { min: 1, max: IMAGE_VARIANT_MAX_EDGE }),
    maxHeight: query.integer('maxHeight', { min: 1, max: IMAGE_VARIANT_MAX_EDGE }),
    quality: query.integer('quality', { min: 1, max: 100 }),
  };
}

/** Does an If-None-Match header name this ETag (weak comparison, `*` matches any)? */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((part) => {
    const candidate = part.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === bare;
  });
}

/**
 * The players' artwork route: every answer (each type, size and tag) goes through the node's image cache
 * with an ETag and If-None-Match (304). Variants are resized once by the media service and cached here.
 */
export function registerArtworkRoute(routes: ProtocolRoutes, images: ImageCache): void {
  const { deps } = routes;
  const access = new LRUCache<string, boolean>({ max: 20_000, ttl: ACCESS_CACHE_MS });

  /** A signed-in viewer sees only artwork of items in their libraries (hidden: 404). */
  const viewerMaySee = async (userId: string, itemId: string): Promise<boolean> => {
    const key = `${userId}\u0000${itemId}`;
    let allowed = access.get(key);
    if (allowed === undefined) {
      allowed = await deps.media.item(userId, itemId).then(
        () => true,
        (error: unknown) => {
          if (error instanceof AppError && error.statusCode === 404) return false;
          throw error;
        },
      );
      access.set(key, allowed);
    }
    return allowed;
  };

  /** The first candidate item that has the artwork, from the media service (null: none has). */
  const fetchImage = async (
    candidates: string[],
    type: PlaybackImageType,
    variant: ReturnType<typeof imageVariantOf>,
  ) => {
    for (const itemId of candidates) {
      const url = new URL(await deps.media.imageUrl(itemId, type));
      for (const [name, value] of Object.entries(variant)) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      const answer = await undiciRequest(url, {
        headers: { [SERVICE_TOKEN_HEADER]: deps.serviceToken },
        headersTimeout: 15_000,
        bodyTimeout: 30_000,
      }).catch((error: Error) => {
        throw new AppError(503, 'UPSTREAM_UNAVAILABLE', `media service: ${error.message}`);
      });
      if (answer.statusCode === 404) {
        await answer.body.dump();
        continue;
      }
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        throw new AppError(502, 'UPSTREAM_FAILED', `image answered ${answer.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > IMAGE_MAX_BYTES) {
          answer.body.destroy();
          throw new AppError(502, 'UPSTREAM_FAILED', 'the image is larger than artwork may be');
        }
        chunks.push(chunk);
      }
      const contentType = answer.headers['content-type'];
      return {
        body: Buffer.concat(chunks),
        contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream',
        itemId,
      };
    }
    return null;
  };

  routes.anonymous(protoA.GetItemImage, async (request, reply, query) => {
    const params = request.params as { id: string; type: string; index?: string };
    const type = IMAGE_TYPE[params.type.toLowerCase()];
    const id = fromProtocolId(params.id);
    if (!type || !id || (params.index !== undefined && params.index !== '0')) throw notFound('image');
    // Open like Emby's (players load artwork without a token); with a valid token, the user's libraries
    // apply and artwork of a hidden item is not found.
    const viewer = await routes.optionalPlayer(request);
    const tag = query.string('tag');
    const variant = imageVariantOf(query);
    // A library's image is the poster of the item its tag names (see the views).
    const candidates = [id, fromProtocolId(tag)].filter((value): value is string => value !== null);
    const key = JSON.stringify([id, type, tag ?? null, variant.maxWidth, variant.maxHeight, variant.quality]);
    const headerValue = request.headers['if-none-match'];
    const ifNoneMatch = typeof headerValue === 'string' ? headerValue : undefined;
    const mayRead = async (itemId: string) => !viewer || (await viewerMaySee(viewer.userId, itemId));

    // A revalidation of a cached image is answered from the index, without reading the image.
    const known = ifNoneMatch ? await images.cachedFacts(key) : undefined;
    if (known && matchesEtag(ifNoneMatch, known.etag)) {
      if (!(await mayRead(known.itemId))) throw notFound('image');
      void reply.header('etag', known.etag).header('cache-control', CLIENT_CACHE_CONTROL);
      return reply.header('x-svc-image-cache', 'hit').code(304).send();
    }

    const image = await images.image(key, () => fetchImage(candidates, type, variant));
    if (!image || !(await mayRead(image.itemId))) throw notFound('image');

    void reply.header('etag', image.etag).header('cache-control', CLIENT_CACHE_CONTROL);
    void reply.header('x-svc-image-cache', image.hit ? 'hit' : 'miss');
    if (matchesEtag(ifNoneMatch, image.etag)) return reply.code(304).send();
    void reply.type(image.contentType).header('content-length', image.body.length);
    if (request.method === 'HEAD') return reply.send();
    return reply.send(image.body);
  });
}
