import { itemIdParamsSchema, itemImageParamsSchema, mediaItemDetailSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { registerImageRoute } from './image-route.js';
import type { ItemsService } from './items.service.js';

/** Item detail and artwork (console permission `library`; the play-agent reuses the image route). */
export function registerItemsRoutes(app: AppServer, items: ItemsService): void {
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['library'] } } } as const;

  app.get(
    '/api/media/items/:id',
    { config, schema: { params: itemIdParamsSchema, response: { 200: mediaItemDetailSchema } } },
    async (request) => items.get(request.params.id),
  );
  registerImageRoute(
    app,
    '/api/media/items/:id/images/:type',
    config.auth,
    itemImageParamsSchema,
    (id, type, range, reply) => items.sendImage(id, type, range, reply),
  );
}
