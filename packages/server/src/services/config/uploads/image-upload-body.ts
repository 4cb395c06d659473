import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { IMAGE_UPLOAD_MAX_BYTES } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import { payloadTooLarge } from './image-uploads.service.js';

/** Room for the multipart boundaries, part headers and other fields around a 2 MB file. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** Beyond this much, a refused body is no longer read to its end: the connection is closed instead. */
const DRAIN_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The limits handed to busboy (through @fastify/multipart): a "file" of at most 2 MB, as a file part or a plain
 * field; the whole form is held to the image limit plus MULTIPART_OVERHEAD_BYTES by multipartImage.
 */
const MULTIPART_LIMITS = { fileSize: IMAGE_UPLOAD_MAX_BYTES, fieldSize: IMAGE_UPLOAD_MAX_BYTES } as const;

const unsupportedBody = () =>
  new AppError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'send the image as the body (Content-Type image/* or application/octet-stream) or as multipart/form-data field "file"',
  );

/** The errors @fastify/multipart raises when a limit above is passed (all 413). */
const MULTIPART_LIMIT_CODES = new Set([
  'FST_REQ_FILE_TOO_LARGE',
  'FST_PARTS_LIMIT',
  'FST_FILES_LIMIT',
  'FST_FIELDS_LIMIT',
]);

function isLimitError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && MULTIPART_LIMIT_CODES.has(code);
}

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

function declaredLength(raw: IncomingMessage): number | undefined {
  const declared = raw.headers['content-length'];
  return declared === undefined ? undefined : Number(declared);
}

/**
 * Reads the request body, at most `limit` bytes. A longer body (declared or streamed) answers 413 with the error
 * body once the rest has been drained.
 */
async function readLimited(body: Readable, raw: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = declaredLength(raw);
  if (declared !== undefined && declared > limit) {
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

/** Discards a file part that is not the image (busboy waits until each part is read). */
async function discard(stream: Readable): Promise<void> {
  for await (const chunk of stream) void chunk;
}

/**
 * The part named "file" of a multipart form, parsed by @fastify/multipart. The whole form is read (the parts
 * after the image are thrown away) so the request ends cleanly; a form larger than the image limit plus
 * MULTIPART_OVERHEAD_BYTES answers 413 like a file above the limit, and a form of more than DRAIN_MAX_BYTES
 * closes the connection.
 */
async function multipartImage(request: FastifyRequest): Promise<Buffer> {
  const raw = request.raw;
  const limit = IMAGE_UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD_BYTES;
  const declared = declaredLength(raw);
  if (declared !== undefined && declared > limit) {
    await drain(raw, 0);
    throw payloadTooLarge();
  }
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_MAX_BYTES) raw.destroy();
  };
  raw.on('data', count);
  let file: Buffer | null = null;
  let tooLarge = false;
  try {
    // A part without a file name is a field: busboy decodes it as latin1, which gives the bytes back unchanged.
    for await (const part of request.parts({ limits: MULTIPART_LIMITS, defCharset: 'latin1' })) {
      if (part.type === 'field') {
        if (part.fieldname === 'file' && file === null) {
          if (part.valueTruncated) tooLarge = true;
          else file = Buffer.from(String(part.value), 'latin1');
        }
      } else if (part.fieldname === 'file' && file === null && !tooLarge) {
        try {
          file = await part.toBuffer();
        } catch (error) {
          if (!isLimitError(error)) throw error;
          tooLarge = true;
        }
      } else {
        await discard(part.file);
      }
    }
  } catch (error) {
    if (isLimitError(error)) throw payloadTooLarge();
    if (error instanceof AppError) throw error;
    throw new AppError(
      400,
      'VALIDATION_FAILED',
      `the multipart body is malformed: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    raw.off('data', count);
  }
  if (tooLarge || received > limit) throw payloadTooLarge();
  if (!file) throw new AppError(400, 'VALIDATION_FAILED', 'the form has no field "file"');
  if (file.length > IMAGE_UPLOAD_MAX_BYTES) throw payloadTooLarge();
  return file;
}

/**
 * The image bytes of an upload request: the raw body (handed over as a stream by the route's content-type
 * parser), or the "file" field of a multipart form.
 */
export async function imageBytes(request: FastifyRequest): Promise<Buffer> {
  const contentType = request.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'multipart/form-data') {
    if (!/;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.test(contentType)) {
      throw new AppError(400, 'VALIDATION_FAILED', 'the multipart body names no boundary');
    }
    return multipartImage(request);
  }
  const body = request.body;
  if (!(body instanceof Readable)) throw unsupportedBody();
  // The declared type only has to say "an image" (or "bytes"); what it is comes from the bytes.
  if (!mediaType.startsWith('image/') && mediaType !== 'application/octet-stream') throw unsupportedBody();
  return readLimited(body, request.raw, IMAGE_UPLOAD_MAX_BYTES);
}
