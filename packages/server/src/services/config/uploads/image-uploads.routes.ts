import fastifyMultipart from '@fastify/multipart';
import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { imageBytes } from './image-upload-body.js';
import type { ImageUploadsService } from './image-uploads.service.js';

/** Header with the SHA-256 of an upload served to another service. */
export const UPLOAD_SHA256_HEADER = 'x-svc-image-sha256';

export async function registerImageUploadRoutes(app: AppServer, uploads: ImageUploadsService): Promise<void> {
  // The upload body is read by the route with the 2 MB limit (the console entrance admits 20 MB): a raw image
  // is handed over as a stream and a form goes to @fastify/multipart, so Fastify's own body limit does not
  // apply. Both parsers are limited to this scope.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    await scope.register(fastifyMultipart);
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    serve(scope, endpoints.config.uploadImage, async (request) =>
      uploads.store(await imageBytes(request), request.identity?.userId ?? null),
    );
  });

  // The user service copies a saved logo from here (service token only).
  serve(app, endpoints.config.getUpload, async (request, reply) => {
    const upload = await uploads.get(request.params.id);
    return reply
      .header('content-type', upload.content_type)
      .header(UPLOAD_SHA256_HEADER, upload.sha256)
      .header('x-content-type-options', 'nosniff')
      .send(upload.data);
  });
  serve(app, endpoints.config.deleteUpload, async (request, reply) => {
    await uploads.delete(request.params.id);
    return reply.status(204).send();
  });
}
