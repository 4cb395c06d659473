import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { retryAfter } from './auth.routes.js';
import type { PlaybackAuthService } from './playback-auth.service.js';

/** Sign-in of playback clients, called by the play-agent with the service token (docs/auth.md, "Playback clients"). */
export function registerPlaybackAuthRoutes(app: AppServer, playback: PlaybackAuthService): void {
  const user = endpoints.user;
  serve(app, user.playbackLogin, async (request, reply) =>
    playback.login(request.body).catch(retryAfter(reply)),
  );
  serve(app, user.playbackLogout, async (request, reply) => {
    await playback.logout(request.body.tokenId);
    return reply.send();
  });
  serve(app, user.getPlaybackUser, async (request) => playback.user(request.params.id));
}
