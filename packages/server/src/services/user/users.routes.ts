import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import type { AccessPolicyService } from './access-policy.service.js';
import { actorOf } from './request-actor.js';
import type { UsersService } from './users.service.js';

/** User management: console accounts holding the menu permission `user`. */
export function registerUsersRoutes(
  app: AppServer,
  services: { users: UsersService; access: AccessPolicyService },
): void {
  const { users, access } = services;
  const user = endpoints.user;

  serve(app, user.listUsers, async (request) => users.list(request.query));
  serve(app, user.createUser, async (request) => users.create(actorOf(request), request.body));
  serve(app, user.getUser, async (request) => users.get(request.params.id));
  serve(app, user.updateUser, async (request) =>
    users.update(actorOf(request), request.params.id, request.body),
  );
  serve(app, user.deleteUser, async (request, reply) => {
    await users.delete(actorOf(request), request.params.id);
    return reply.send();
  });
  serve(app, user.setUserPermissions, async (request) =>
    users.setPermissions(actorOf(request), request.params.id, request.body.permissions),
  );
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
}
