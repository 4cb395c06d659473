import {
  createMountRequestSchema,
  mountCheckResponseSchema,
  mountIdParamsSchema,
  mountListSchema,
  mountSchema,
  providerListSchema,
  updateMountRequestSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { CONSOLE_STORAGE as config, identityOf, type StorageServices } from './storage-services.js';

/** Mount records: /api/storage/providers and /api/storage/mounts[/:mountId[/check]]. */
export function registerMountRoutes(app: AppServer, { mounts }: StorageServices): void {
  app.get(
    '/api/storage/providers',
    { config, schema: { response: { 200: providerListSchema } } },
    async () => ({
      providers: mounts.providers(),
    }),
  );
  app.get('/api/storage/mounts', { config, schema: { response: { 200: mountListSchema } } }, async () => ({
    mounts: await mounts.list(),
  }));
  app.post(
    '/api/storage/mounts',
    { config, schema: { body: createMountRequestSchema, response: { 201: mountSchema } } },
    async (request, reply) => reply.status(201).send(await mounts.create(identityOf(request), request.body)),
  );
  app.get(
    '/api/storage/mounts/:mountId',
    { config, schema: { params: mountIdParamsSchema, response: { 200: mountSchema } } },
    async (request) => mounts.describe(request.params.mountId),
  );
  app.patch(
    '/api/storage/mounts/:mountId',
    {
      config,
      schema: { params: mountIdParamsSchema, body: updateMountRequestSchema, response: { 200: mountSchema } },
    },
    async (request) => mounts.update(identityOf(request), request.params.mountId, request.body),
  );
  app.delete(
    '/api/storage/mounts/:mountId',
    { config, schema: { params: mountIdParamsSchema } },
    async (request, reply) => {
      await mounts.delete(identityOf(request), request.params.mountId);
      return reply.status(204).send();
    },
  );
  app.post(
    '/api/storage/mounts/:mountId/check',
    { config, schema: { params: mountIdParamsSchema, response: { 200: mountCheckResponseSchema } } },
    async (request) => mounts.check(request.params.mountId),
  );
}
