import {
  createUserRequestSchema,
  libraryAccessAnswerSchema,
  libraryAccessSchema,
  listUsersQuerySchema,
  listUsersResponseSchema,
  managedUserSchema,
  nodeAccessSchema,
  quotasSchema,
  setPermissionsRequestSchema,
  updateUserRequestSchema,
  userDetailSchema,
  userIdParamsSchema,
  userUsageResponseSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { AccessPolicyService } from './access-policy.service.js';
import { actorOf } from './request-actor.js';
import type { UsersService } from './users.service.js';

/** User management: console accounts holding the menu permission `user`. */
export function registerUsersRoutes(
  app: AppServer,
  services: { users: UsersService; access: AccessPolicyService },
): void {
  const { users, access } = services;
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['user'] } } } as const;

  app.get(
    '/api/auth/admin/users',
    { config, schema: { querystring: listUsersQuerySchema, response: { 200: listUsersResponseSchema } } },
    async (request) => users.list(request.query),
  );
  app.post(
    '/api/auth/admin/users',
    { config, schema: { body: createUserRequestSchema, response: { 201: managedUserSchema } } },
    async (request, reply) => reply.status(201).send(await users.create(actorOf(request), request.body)),
  );
  app.get(
    '/api/auth/admin/users/:id',
    { config, schema: { params: userIdParamsSchema, response: { 200: userDetailSchema } } },
    async (request) => users.get(request.params.id),
  );
  app.patch(
    '/api/auth/admin/users/:id',
    {
      config,
      schema: {
        params: userIdParamsSchema,
        body: updateUserRequestSchema,
        response: { 200: managedUserSchema },
      },
    },
    async (request) => users.update(actorOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/auth/admin/users/:id',
    { config, schema: { params: userIdParamsSchema } },
    async (request, reply) => {
      await users.delete(actorOf(request), request.params.id);
      return reply.status(204).send();
    },
  );
  app.put(
    '/api/auth/admin/users/:id/permissions',
    {
      config,
      schema: {
        params: userIdParamsSchema,
        body: setPermissionsRequestSchema,
        response: { 200: managedUserSchema },
      },
    },
    async (request) => users.setPermissions(actorOf(request), request.params.id, request.body.permissions),
  );
  app.put(
    '/api/auth/admin/users/:id/node-access',
    {
      config,
      schema: { params: userIdParamsSchema, body: nodeAccessSchema, response: { 200: nodeAccessSchema } },
    },
    async (request) => access.setNodeAccess(actorOf(request), request.params.id, request.body),
  );
  app.put(
    '/api/auth/admin/users/:id/library-access',
    {
      config,
      schema: {
        params: userIdParamsSchema,
        body: libraryAccessSchema,
        response: { 200: libraryAccessAnswerSchema },
      },
    },
    async (request) => access.setLibraryAccess(actorOf(request), request.params.id, request.body),
  );
  app.put(
    '/api/auth/admin/users/:id/quotas',
    { config, schema: { params: userIdParamsSchema, body: quotasSchema, response: { 200: quotasSchema } } },
    async (request) => access.setQuotas(actorOf(request), request.params.id, request.body),
  );
  app.get(
    '/api/auth/admin/users/:id/usage',
    { config, schema: { params: userIdParamsSchema, response: { 200: userUsageResponseSchema } } },
    async (request) => access.usage(request.params.id),
  );
}
