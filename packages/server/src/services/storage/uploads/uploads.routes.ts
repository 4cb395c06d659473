import { Readable } from 'node:stream';
import { endpoints } from '@svc/contracts';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { AppError } from '../../../platform/http/errors.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { FilesService } from '../files/files.service.js';
import { parseMountPath } from '../path-safety.js';
import { entryFacts, fileTarget } from '../storage-audit.js';
import type { UploadsService } from './uploads.service.js';

/** Chunked, resumable uploads under /api/storage/mounts/:mountId/uploads. */
export async function registerUploadRoutes(
  app: AppServer,
  uploads: UploadsService,
  files: FilesService,
  audit: AuditClient,
): Promise<void> {
  serve(app, endpoints.storage.createUpload, async (request) =>
    uploads.create(identityOf(request), request.params.mountId, request.body),
  );
  serve(app, endpoints.storage.getUpload, async (request) =>
    uploads.get(request.params.mountId, request.params.uploadId),
  );
  serve(app, endpoints.storage.abortUpload, async (request, reply) => {
    await uploads.abort(request.params.mountId, request.params.uploadId);
    return reply.send();
  });
  serve(app, endpoints.storage.completeUpload, async (request) => {
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
  });
  // Chunk bodies are raw bytes streamed straight to the staging file: never parsed, never buffered.
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
    serve(scope, endpoints.storage.putUploadChunk, async (request) => {
      // No declared body: the content-type parser above hands over the request stream itself.
      const body: unknown = request.body;
      if (!(body instanceof Readable)) {
        throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'chunks are sent as application/octet-stream');
      }
      const declared = request.headers['content-length'];
      return uploads.putChunk(
        request.params.mountId,
        request.params.uploadId,
        request.params.index,
        body,
        declared === undefined ? undefined : Number(declared),
      );
    });
  });
}
