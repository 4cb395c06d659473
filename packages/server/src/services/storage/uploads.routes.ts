import { Readable } from 'node:stream';
import {
  createUploadRequestSchema,
  mountIdParamsSchema,
  uploadChunkParamsSchema,
  uploadChunkResponseSchema,
  uploadCompleteResponseSchema,
  uploadParamsSchema,
  uploadSchema,
} from '@svc/contracts';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppServer } from '../../platform/http/create-server.js';
import { AppError } from '../../platform/http/errors.js';
import { parseMountPath } from './path-safety.js';
import {
  CONSOLE_STORAGE as config,
  entryFacts,
  fileTarget,
  identityOf,
  type StorageServices,
} from './storage-services.js';

/** Chunked, resumable uploads under /api/storage/mounts/:mountId/uploads. */
export async function registerUploadRoutes(
  app: AppServer,
  { uploads, files, audit }: StorageServices,
): Promise<void> {
  app.post(
    '/api/storage/mounts/:mountId/uploads',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        body: createUploadRequestSchema,
        response: { 201: uploadSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await uploads.create(identityOf(request), request.params.mountId, request.body)),
  );
  app.get(
    '/api/storage/mounts/:mountId/uploads/:uploadId',
    { config, schema: { params: uploadParamsSchema, response: { 200: uploadSchema } } },
    async (request) => uploads.get(request.params.mountId, request.params.uploadId),
  );
  app.delete(
    '/api/storage/mounts/:mountId/uploads/:uploadId',
    { config, schema: { params: uploadParamsSchema } },
    async (request, reply) => {
      await uploads.abort(request.params.mountId, request.params.uploadId);
      return reply.status(204).send();
    },
  );
  app.post(
    '/api/storage/mounts/:mountId/uploads/:uploadId/complete',
    { config, schema: { params: uploadParamsSchema, response: { 200: uploadCompleteResponseSchema } } },
    async (request) => {
      const { mountId, uploadId } = request.params;
      const upload = await uploads.get(mountId, uploadId);
      // An open upload allowed to overwrite replaces the file found now (when there is one).
      const replaced =
        upload.overwrite && upload.state === 'open'
          ? await files.stat(mountId, parseMountPath(upload.path)).catch(() => null)
          : null;
      const completed = await uploads.complete(mountId, uploadId);
      if (replaced) {
        await audit.record(request, {
          action: 'file.upload-overwrite',
          target: fileTarget(mountId, completed.entry.path),
          before: entryFacts(replaced),
          after: entryFacts(completed.entry),
          details: { uploadId },
        });
      }
      return completed;
    },
  );
  // Chunk bodies are raw bytes streamed straight to the staging file: never parsed, never buffered.
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
    scope.put(
      '/api/storage/mounts/:mountId/uploads/:uploadId/chunks/:index',
      { config, schema: { params: uploadChunkParamsSchema, response: { 200: uploadChunkResponseSchema } } },
      async (request) => {
        if (!(request.body instanceof Readable)) {
          throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'chunks are sent as application/octet-stream');
        }
        const declared = request.headers['content-length'];
        const body = request.body;
        return uploads.putChunk(
          request.params.mountId,
          request.params.uploadId,
          request.params.index,
          body,
          declared === undefined ? undefined : Number(declared),
        );
      },
    );
  });
}
