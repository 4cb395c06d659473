import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import type { ImageType } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { RouteAuth } from '../../platform/http/route-auth.js';

/**
 * Sends the bytes of an item's artwork; `range` is the request's Range header, passed on to the storage node;
 * `request` tells who asks where that matters (library access).
 */
export type ImageSender = (
  id: string,
  type: ImageType,
  range: string | undefined,
  reply: FastifyReply,
  request: FastifyRequest,
) => Promise<FastifyReply>;

/**
 * Registers an artwork route `…/:id/images/:type` (GET, and Fastify's automatic HEAD twin, which answers
 * the headers only). The console's, the play-agent's and the portal's image routes differ only in their
 * rule, the form of the id they accept, and who checks it; the bytes all come from ItemsService.sendImage.
 */
export function registerImageRoute(
  app: AppServer,
  url: string,
  auth: RouteAuth,
  params: ZodType<{ id: string; type: ImageType }>,
  send: ImageSender,
): void {
  app.get(url, { config: { auth }, schema: { params } }, async (request, reply) => {
    const { id, type } = request.params;
    const range = request.headers.range;
    return send(id, type, typeof range === 'string' ? range : undefined, reply, request);
  });
}
