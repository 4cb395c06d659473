import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { unauthorized } from '../../../platform/http/errors.js';
import { forwardedEntranceHost } from '../../../platform/http/request-origin.js';
import type { PlaybackRoutesService } from './playback-routes.service.js';

/** The playback addresses of the signed-in account (portal or console token). See docs/nodes.md. */
export function registerPlaybackRoutesRoutes(app: AppServer, playbackRoutes: PlaybackRoutesService): void {
  serve(app, endpoints.config.getMyPlaybackRoutes, async (request) => {
    if (!request.identity) throw unauthorized('sign-in required');
    return playbackRoutes.playbackRoutes(request.identity, forwardedEntranceHost(request));
  });
}
