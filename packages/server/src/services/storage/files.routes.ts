import {
  browseQuerySchema,
  browseResponseSchema,
  deleteRequestSchema,
  mkdirRequestSchema,
  mountIdParamsSchema,
  pathQuerySchema,
  renameRequestSchema,
  requiredPathQuerySchema,
  storageEntrySchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { replyWithFile } from './file-response.js';
import { parseMountPath } from './path-safety.js';
import {
  CONSOLE_STORAGE as config,
  entryFacts,
  fileTarget,
  type StorageServices,
} from './storage-services.js';

/** Browsing, stat, download and the one-step operations of the file manager. */
export function registerFileRoutes(app: AppServer, { files, mounts, audit }: StorageServices): void {
  app.get(
    '/api/storage/mounts/:mountId/browse',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        querystring: browseQuerySchema,
        response: { 200: browseResponseSchema },
      },
    },
    async (request) =>
      files.browse(request.params.mountId, parseMountPath(request.query.path), request.query),
  );
  app.get(
    '/api/storage/mounts/:mountId/stat',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        querystring: pathQuerySchema,
        response: { 200: storageEntrySchema },
      },
    },
    async (request) => files.stat(request.params.mountId, parseMountPath(request.query.path)),
  );
  app.route({
    method: ['GET', 'HEAD'],
    url: '/api/storage/mounts/:mountId/download',
    config,
    schema: { params: mountIdParamsSchema, querystring: requiredPathQuerySchema },
    handler: async (request, reply) => {
      const path = parseMountPath(request.query.path);
      const mount = await mounts.get(request.params.mountId);
      return replyWithFile(request, reply, mount, path, { attachment: true });
    },
  });
  app.post(
    '/api/storage/mounts/:mountId/mkdir',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        body: mkdirRequestSchema,
        response: { 201: storageEntrySchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await files.mkdir(request.params.mountId, parseMountPath(request.body.path), request.body.parents),
        ),
  );
  app.post(
    '/api/storage/mounts/:mountId/rename',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        body: renameRequestSchema,
        response: { 200: storageEntrySchema },
      },
    },
    async (request) =>
      files.rename(request.params.mountId, parseMountPath(request.body.path), request.body.newName),
  );
  app.post(
    '/api/storage/mounts/:mountId/delete',
    { config, schema: { params: mountIdParamsSchema, body: deleteRequestSchema } },
    async (request, reply) => {
      const { mountId } = request.params;
      const path = parseMountPath(request.body.path);
      const before = await files.stat(mountId, path);
      await files.delete(mountId, path, request.body.recursive);
      await audit.record(request, {
        action: 'file.delete',
        target: fileTarget(mountId, before.path),
        before: entryFacts(before),
        after: null,
      });
      return reply.status(204).send();
    },
  );
}
