import { myWebPlaybackResponseSchema, userUsageResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { AccessPolicyService } from './access-policy.service.js';
import { identityOf } from './request-actor.js';
import type { WebPlaybackService } from './web-playback.service.js';

/** The signed-in account's own facts for the portal (either token of the account). */
export function registerMeRoutes(
  app: AppServer,
  services: { access: AccessPolicyService; webPlayback: WebPlaybackService },
): void {
  const { access, webPlayback } = services;
  const config = { auth: { gateway: { kind: 'account' } } } as const;

  app.get(
    '/api/auth/me/web-playback',
    { config, schema: { response: { 200: myWebPlaybackResponseSchema } } },
    async (request) => webPlayback.forAccount(identityOf(request)),
  );
  // The same answer as an administrator's GET /api/auth/admin/users/:id/usage, for the caller itself.
  app.get(
    '/api/auth/me/usage',
    { config, schema: { response: { 200: userUsageResponseSchema } } },
    async (request) => access.usage(identityOf(request).userId),
  );
}
