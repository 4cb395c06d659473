import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import { serveImage } from '../items/image-route.js';
import type { PortalService } from './portal.service.js';

/** The user portal's libraries and items: any signed-in account (portal or console token), within its library access. */
export function registerPortalRoutes(app: AppServer, portal: PortalService): void {
  serve(app, endpoints.media.listMyLibraries, async (request) => portal.libraries(identityOf(request)));
  serve(app, endpoints.media.listMyItems, async (request) => portal.list(identityOf(request), request.query));
  serve(app, endpoints.media.getMyItem, async (request) =>
    portal.get(identityOf(request), request.params.id),
  );
  serveImage(app, endpoints.media.getMyItemImage, ({ id, type, range, reply, request }) =>
    portal.sendImage(identityOf(request), id, type, range, reply),
  );
}
