import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { serveImage } from './image-route.js';
import type { ItemsService } from './items.service.js';

/** A library's items, item detail and artwork (console permission `library`). */
export function registerItemsRoutes(app: AppServer, items: ItemsService): void {
  serve(app, endpoints.media.listLibraryItems, async (request) =>
    items.list(request.params.id, request.query),
  );
  serve(app, endpoints.media.getItem, async (request) => items.get(request.params.id));
  serveImage(app, endpoints.media.getItemImage, ({ id, type, range, reply }) =>
    items.sendImage(id, type, range, reply),
  );
}
