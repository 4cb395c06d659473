import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import type { AccessPolicyService } from './access-policy.service.js';
import { identityOf } from './request-actor.js';
import type { WebPlaybackService } from './web-playback.service.js';

/** The signed-in account's own facts for the portal (either token of the account). */
export function registerMeRoutes(
  app: AppServer,
  services: { access: AccessPolicyService; webPlayback: WebPlaybackService },
): void {
  const { access, webPlayback } = services;

  serve(app, endpoints.user.getMyWebPlayback, async (request) => webPlayback.forAccount(identityOf(request)));
  // The same answer as an administrator's GET /api/auth/admin/users/:id/usage, for the caller itself.
  serve(app, endpoints.user.getMyUsage, async (request) => access.usage(identityOf(request).userId));
}
