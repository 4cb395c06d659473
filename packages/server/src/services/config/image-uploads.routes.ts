import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { IMAGE_UPLOAD_MAX_BYTES, imageUploadResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { AppError } from '../../platform/http/errors.js';
import type { GatewayRule } from '../../platform/http/route-auth.js';
import { payloadTooLarge, type ImageUploadsService } from './image-uploads.service.js';

const SETTINGS_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['settings'] };
/** Room for the multipart boundaries and part headers around a 2 MB file. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** Header with the SHA-256 of an upload served to another service. */
export const UPLOAD_SHA256_HEADER = 'x-svc-image-sha256';

const uploadParamsSchema = z.object({ id: z.uuid() });

const unsupportedBody = () =>
  new AppError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'send the image as the body (Content-Type image/* or application/octet-stream) or as multipart/form-data field "file"',
  );

/** Beyond this much, a refused body is no longer read to its end: the connection is closed instead. */
const DRAIN_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Reads what is left of a refused body and throws it away, so the proxies in front (frontend, gateway) see a
 * complete request and pass the 413 on instead of a broken connection. The console entrance admits 20 MB.
 */
async function drain(body: Readable, already: number): Promise<void> {
  let total = already;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > DRAIN_MAX_BYTES) {
      body.destroy();
      return;
    }
  }
}

/**
 * Reads the request body, at most `limit` bytes. A longer body (declared or streamed) answers 413 with the error
 * body once the rest has been drained.
 */
async function readLimited(body: Readable, headers: IncomingHttpHeaders, limit: number): Promise<Buffer> {
  const declared = headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    await drain(body, 0);
    throw payloadTooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > limit) {
      await drain(body, total);
      throw payloadTooLarge();
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

/** The content of the multipart part named "file" (the first one), or null when there is none. */
export function multipartFile(body: Buffer, boundary: string): Buffer | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const between = Buffer.from(`\r\n--${boundary}`);
  let position = body.indexOf(delimiter);
  if (position < 0) return null;
  position += delimiter.length;
  for (;;) {
    // "--" after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return null;
    if (body[position] !== 0x0d || body[position + 1] !== 0x0a) return null;
    const headerStart = position + 2;
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerEnd < 0) return null;
    const partHeaders = body.subarray(headerStart, headerEnd).toString('utf8');
    const contentStart = headerEnd + 4;
    const next = body.indexOf(between, contentStart);
    if (next < 0) return null;
    if (/^content-disposition:\s*form-data;(?:[^\r\n]*;)?\s*name="file"(?:;|\s*$)/im.test(partHeaders)) {
      return body.subarray(contentStart, next);
    }
    position = next + between.length;
  }
}

/** The image bytes of an upload request: the raw body, or the "file" field of a multipart form. */
async function imageBytes(body: unknown, headers: IncomingHttpHeaders): Promise<Buffer> {
  if (!(body instanceof Readable)) throw unsupportedBody();
  const contentType = headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'multipart/form-data') {
    const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
    if (!boundary) throw new AppError(400, 'VALIDATION_FAILED', 'the multipart body names no boundary');
    const form = await readLimited(body, headers, IMAGE_UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD_BYTES);
    const file = multipartFile(form, boundary[1] ?? boundary[2]!);
    if (!file) throw new AppError(400, 'VALIDATION_FAILED', 'the form has no field "file"');
    if (file.length > IMAGE_UPLOAD_MAX_BYTES) throw payloadTooLarge();
    return file;
  }
  // The declared type only has to say "an image" (or "bytes"); what it is comes from the bytes.
  if (!mediaType.startsWith('image/') && mediaType !== 'application/octet-stream') throw unsupportedBody();
  return readLimited(body, headers, IMAGE_UPLOAD_MAX_BYTES);
}

export async function registerImageUploadRoutes(app: AppServer, uploads: ImageUploadsService): Promise<void> {
  // The upload body is read here with the 2 MB limit (the console entrance admits 20 MB): never parsed by
  // Fastify, so its own body limit does not apply.
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post(
      '/api/config/uploads/image',
      {
        config: { auth: { gateway: SETTINGS_ADMIN } },
        schema: { response: { 201: imageUploadResponseSchema } },
      },
      async (request, reply) => {
        const bytes = await imageBytes(request.body, request.headers);
        const stored = await uploads.store(bytes, request.identity?.userId ?? null);
        return reply.status(201).send(stored);
      },
    );
  });

  // The user service copies a saved logo from here (service token only).
  app.get(
    '/api/config/internal/uploads/:id',
    { config: { auth: { service: true } }, schema: { params: uploadParamsSchema } },
    async (request, reply) => {
      const upload = await uploads.get(request.params.id);
      return reply
        .header('content-type', upload.content_type)
        .header(UPLOAD_SHA256_HEADER, upload.sha256)
        .header('x-content-type-options', 'nosniff')
        .send(upload.data);
    },
  );
  app.delete(
    '/api/config/internal/uploads/:id',
    { config: { auth: { service: true } }, schema: { params: uploadParamsSchema } },
    async (request, reply) => {
      await uploads.delete(request.params.id);
      return reply.status(204).send();
    },
  );
}
