import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { actorOf, identityOf } from '../request-actor.js';
import type { AccessPolicyService } from './access-policy.service.js';

/**
 * An account's node access, library access and traffic quotas (console, menu permission `user`), and the
 * signed-in account's own quota usage (portal).
 */
export function registerAccessRoutes(app: AppServer, access: AccessPolicyService): void {
  const user = endpoints.user;

  serve(app, user.setUserNodeAccess, async (request) =>
    access.setNodeAccess(actorOf(request), request.params.id, request.body),
  );
  serve(app, user.setUserLibraryAccess, async (request) =>
    access.setLibraryAccess(actorOf(request), request.params.id, request.body),
  );
  serve(app, user.setUserQuotas, async (request) =>
    access.setQuotas(actorOf(request), request.params.id, request.body),
  );
  serve(app, user.getUserUsage, async (request) => access.usage(request.params.id));
  // The same answer as an administrator's GET /api/auth/admin/users/:id/usage, for the caller itself.
  serve(app, user.getMyUsage, async (request) => access.usage(identityOf(request).userId));
  // The play-agents' usage reports and policy reads (service token only).
  serve(app, user.recordUsage, async (request, reply) => {
    await access.recordUsage(request.body);
    return reply.send();
  });
  serve(app, user.getPlaybackPolicy, async (request) => access.playbackPolicy(request.params.id));
}
