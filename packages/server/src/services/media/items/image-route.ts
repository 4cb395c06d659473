import type { FastifyReply } from 'fastify';
import type { ZodType } from 'zod';
import type { EndpointDeclaration, ImageType } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve, type EndpointRequest } from '../../../platform/http/endpoint-route.js';

/** The console's image route, the URL of an item's local artwork (stored events carry it too). */
export const imageUrl = (itemId: string, type: string) => `/api/media/items/${itemId}/images/${type}`;

/** A declared artwork endpoint: `…/{id}/images/{type}`. */
export type ImageEndpoint = EndpointDeclaration & {
  readonly params: ZodType<{ id: string; type: ImageType }>;
};

/**
 * What an image route hands to the code that sends the bytes: `range` is the request's Range header, passed
 * on to the storage node; `request` tells who asks where that matters (library access).
 */
export interface ImageRequest<E extends ImageEndpoint> {
  id: string;
  type: ImageType;
  range: string | undefined;
  reply: FastifyReply;
  request: EndpointRequest<E>;
}

/**
 * Serves an artwork endpoint (GET, and Fastify's automatic HEAD twin, which answers the headers only). The
 * console's, the play-agent's and the portal's image routes differ only in their rule, the form of the id
 * they accept, and who checks it; the bytes all come from ItemsService.sendImage.
 */
export function serveImage<E extends ImageEndpoint>(
  app: AppServer,
  endpoint: E,
  send: (image: ImageRequest<E>) => Promise<FastifyReply>,
): void {
  serve(app, endpoint, async (request, reply) => {
    // The declaration's params schema has this shape (ImageEndpoint); TypeScript cannot see it generically.
    const { id, type } = request.params as { id: string; type: ImageType };
    const range = request.headers.range;
    return send({ id, type, range: typeof range === 'string' ? range : undefined, reply, request });
  });
}
