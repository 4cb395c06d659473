import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { serveImage } from '../items/image-route.js';
import type { PlaybackCatalogService } from './playback-catalog.service.js';

/** The catalogue for the play-agent (service token only; never routed by the gateway). */
export function registerPlaybackRoutes(app: AppServer, catalog: PlaybackCatalogService): void {
  serve(app, endpoints.media.playbackViews, async (request) => catalog.views(request.query.userId));
  serve(app, endpoints.media.playbackQueryItems, async (request) => catalog.query(request.body));
  serve(app, endpoints.media.playbackGetItem, async (request) =>
    catalog.item(request.params.id, request.query.userId),
  );
  serve(app, endpoints.media.playbackLatest, async (request) => catalog.latest(request.query));
  serve(app, endpoints.media.playbackResume, async (request) => catalog.resume(request.query));
  serve(app, endpoints.media.playbackNextUp, async (request) => catalog.nextUp(request.query));
  serve(app, endpoints.media.playbackUpdateUserData, async (request) => catalog.updateUserData(request.body));
  serve(app, endpoints.media.playbackStoreMediaInfo, async (request) =>
    catalog.storeMediaInfo(request.params.id, request.body),
  );
  // `userId`: the player that asked, when it presented a token (its libraries then apply).
  serveImage(app, endpoints.media.playbackGetItemImage, ({ id, type, range, reply, request }) =>
    catalog.sendImage(id, type, range, reply, request.query.userId, {
      maxWidth: request.query.maxWidth,
      maxHeight: request.query.maxHeight,
      quality: request.query.quality,
    }),
  );
}
