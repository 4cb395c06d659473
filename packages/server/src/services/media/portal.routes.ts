import {
  portalItemDetailSchema,
  portalItemImageParamsSchema,
  portalItemParamsSchema,
  portalItemsQuerySchema,
  portalItemsResponseSchema,
  portalLibrariesResponseSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { identityOf, type RouteAuth } from '../../platform/http/route-auth.js';
import { registerImageRoute } from './image-route.js';
import type { PortalService } from './portal.service.js';

/** The user portal's libraries and items: any signed-in account (portal or console token), within its library access. */
export function registerPortalRoutes(app: AppServer, portal: PortalService): void {
  const auth: RouteAuth = { gateway: { kind: 'account' } };
  const config = { auth };

  app.get(
    '/api/media/me/libraries',
    { config, schema: { response: { 200: portalLibrariesResponseSchema } } },
    async (request) => portal.libraries(identityOf(request)),
  );
  app.get(
    '/api/media/me/items',
    { config, schema: { querystring: portalItemsQuerySchema, response: { 200: portalItemsResponseSchema } } },
    async (request) => portal.list(identityOf(request), request.query),
  );
  app.get(
    '/api/media/me/items/:id',
    { config, schema: { params: portalItemParamsSchema, response: { 200: portalItemDetailSchema } } },
    async (request) => portal.get(identityOf(request), request.params.id),
  );
  registerImageRoute(
    app,
    '/api/media/me/items/:id/images/:type',
    auth,
    portalItemImageParamsSchema,
    (id, type, range, reply, request) => portal.sendImage(identityOf(request), id, type, range, reply),
  );
}
