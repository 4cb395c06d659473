import {
  createMountRequestSchema,
  mountCheckResponseSchema,
  mountIdParamsSchema,
  mountListSchema,
  mountSchema,
  providerListSchema,
  updateMountRequestSchema,
  type Mount,
} from '@svc/contracts';
import { settableFields } from '../../platform/audit/audit-details.js';
import type { AppServer } from '../../platform/http/create-server.js';
import { CONSOLE_STORAGE as config, identityOf, type StorageServices } from './storage-services.js';

/** The fields of a mount an administrator sets (secrets are answered masked), for the audit log. */
const settable = (mount: Mount) => settableFields(mount, ['name', 'provider', 'config']);

/** Mount records: /api/storage/providers and /api/storage/mounts[/:mountId[/check]]. */
export function registerMountRoutes(app: AppServer, { mounts, audit }: StorageServices): void {
  const target = (id: string) => ({ type: 'mount', id });
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
    async (request, reply) => {
      const after = await mounts.create(identityOf(request), request.body);
      await audit.record(request, {
        action: 'mount.create',
        target: target(after.id),
        before: null,
        after: settable(after),
      });
      return reply.status(201).send(after);
    },
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
    async (request) =>
      audit.recordChange(
        request,
        { action: 'mount.update', target: target(request.params.mountId), view: settable },
        () => mounts.describe(request.params.mountId),
        () => mounts.update(identityOf(request), request.params.mountId, request.body),
      ),
  );
  app.delete(
    '/api/storage/mounts/:mountId',
    { config, schema: { params: mountIdParamsSchema } },
    async (request, reply) => {
      const before = await mounts.describe(request.params.mountId);
      await mounts.delete(identityOf(request), request.params.mountId);
      await audit.record(request, {
        action: 'mount.delete',
        target: target(before.id),
        before: settable(before),
        after: null,
      });
      return reply.status(204).send();
    },
  );
  app.post(
    '/api/storage/mounts/:mountId/check',
    { config, schema: { params: mountIdParamsSchema, response: { 200: mountCheckResponseSchema } } },
    async (request) => mounts.check(request.params.mountId),
  );
}
