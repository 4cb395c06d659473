import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EXPECTED_SIZE_HEADER } from '@svc/contracts';
import { errorBody } from '../../platform/http/errors.js';
import {
  fileEtag,
  httpDate,
  ifNoneMatchMatches,
  ifRangeMatches,
} from '../../platform/http/file-delivery/conditional.js';
import { contentTypeOf } from '../../platform/http/file-delivery/content-type.js';
import { attachmentDisposition } from '../../platform/http/file-delivery/disposition.js';
import {
  contentRange,
  parseSingleRange,
  rangeLength,
  unsatisfiedContentRange,
} from '../../platform/http/file-delivery/range.js';
import type { OpenMount } from './mounts.service.js';
import { nameOf, type MountPath } from './path-safety.js';
import type { ByteRange } from './providers/index.js';
import { storageErrors } from './storage-errors.js';

/** What answering a GET/HEAD for a file needs to know about it. */
export interface FileFacts {
  name: string;
  size: number;
  mtime: Date;
}

/** The file's ETag (the formula the play-agent shares: platform/http/file-delivery/conditional.ts). */
export function etagOf(file: FileFacts): string {
  return fileEtag(file.size, file.mtime);
}

export interface FileResponsePlan {
  status: 200 | 206 | 304 | 416;
  headers: Record<string, string>;
  /** Bytes to send (none for HEAD, 304 and 416). */
  range: ByteRange | null;
}

/**
 * Status, headers and byte range of an answer to GET or HEAD for a file: Accept-Ranges, ETag,
 * Last-Modified, If-None-Match (304), If-Range, Range (206 / 416). The download route and the internal
 * file route (and the probe's loopback source) all answer through this one function.
 */
export function planFileResponse(
  method: string,
  requestHeaders: IncomingHttpHeaders,
  file: FileFacts,
  options: { attachment: boolean },
): FileResponsePlan {
  const etag = etagOf(file);
  const lastModified = httpDate(file.mtime);
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    etag,
    'last-modified': lastModified,
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-cache',
  };
  if (options.attachment) {
    // The console origin must never render stored content: always a download, never a page.
    headers['content-disposition'] = attachmentDisposition(file.name);
    headers['content-security-policy'] = "default-src 'none'; sandbox";
  }
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatchMatches(ifNoneMatch, etag)) {
    return { status: 304, headers, range: null };
  }
  let rangeHeader = typeof requestHeaders.range === 'string' ? requestHeaders.range : undefined;
  const ifRange = requestHeaders['if-range'];
  if (
    rangeHeader !== undefined &&
    typeof ifRange === 'string' &&
    !ifRangeMatches(ifRange, etag, lastModified)
  ) {
    rangeHeader = undefined;
  }
  const request = parseSingleRange(rangeHeader, file.size);
  const head = method === 'HEAD';
  const type = contentTypeOf({ name: file.name });
  // A download is never rendered: text would be shown by the browser.
  const contentType = options.attachment && type.startsWith('text/') ? 'application/octet-stream' : type;
  if (request.kind === 'unsatisfiable') {
    return {
      status: 416,
      headers: {
        ...headers,
        'content-range': unsatisfiedContentRange(file.size),
        'content-type': 'application/json',
      },
      range: null,
    };
  }
  headers['content-type'] = contentType;
  if (request.kind === 'partial') {
    headers['content-range'] = contentRange(request.range, file.size);
    headers['content-length'] = String(rangeLength(request.range));
    return { status: 206, headers, range: head ? null : request.range };
  }
  headers['content-length'] = String(file.size);
  return {
    status: 200,
    headers,
    range: head || file.size === 0 ? null : { start: 0, end: file.size - 1 },
  };
}

// --- Sending --------------------------------------------------------------------------------------------

/** Looks the file up and plans the answer; 404 for nothing, 409 IS_A_DIRECTORY for a folder. */
async function planFor(
  method: string,
  headers: IncomingHttpHeaders,
  mount: OpenMount,
  path: MountPath,
  options: { attachment: boolean },
): Promise<FileResponsePlan> {
  const entry = await mount.provider.stat(path);
  if (!entry) throw storageErrors.pathNotFound();
  if (entry.type === 'dir') throw storageErrors.isADirectory();
  return planFileResponse(
    method,
    headers,
    { name: nameOf(path), size: entry.size, mtime: entry.mtime },
    options,
  );
}

/** Answers GET/HEAD with a file of a mount through Fastify, streaming (never buffering) the bytes. */
export async function replyWithFile(
  request: FastifyRequest,
  reply: FastifyReply,
  mount: OpenMount,
  path: MountPath,
  options: { attachment: boolean },
): Promise<FastifyReply> {
  const plan = await planFor(request.method, request.headers, mount, path, options);
  reply.status(plan.status).headers(plan.headers);
  if (plan.status === 416) {
    return reply.send(errorBody('RANGE_NOT_SATISFIABLE', 'the range lies outside the file'));
  }
  if (!plan.range) return reply.send();
  const stream = await mount.provider.read(path, { range: plan.range });
  return reply.send(stream);
}

/**
 * The size a caller of the internal file route says it expects (EXPECTED_SIZE_HEADER), when the answer
 * can be planned with it alone: a GET of one satisfiable range or the whole file, without conditionals
 * (those need the backend's ETag first).
 */
function expectedRead(request: FastifyRequest): { size: number; range: ByteRange } | null {
  const declared = request.headers[EXPECTED_SIZE_HEADER];
  if (request.method !== 'GET' || typeof declared !== 'string' || !/^[0-9]{1,15}$/.test(declared))
    return null;
  const { headers } = request;
  if (headers['if-none-match'] !== undefined || headers['if-range'] !== undefined) return null;
  const size = Number(declared);
  const rangeHeader = typeof headers.range === 'string' ? headers.range : undefined;
  const parsed = parseSingleRange(rangeHeader, size);
  if (parsed.kind === 'partial') return { size, range: parsed.range };
  if (parsed.kind === 'full' && size > 0) return { size, range: { start: 0, end: size - 1 } };
  return null;
}

/**
 * Answers a read of the internal file route. When the caller names the size it expects and the backend
 * reads with a known size (WebDAV), the backend is asked once — a GET that also proves the size — instead
 * of a stat and then a GET: one round trip of a far-away drive less before the first byte of every open
 * and every seek (docs/storage.md, "Internal file reads").
 */
export async function replyWithInternalFile(
  request: FastifyRequest,
  reply: FastifyReply,
  mount: OpenMount,
  path: MountPath,
): Promise<FastifyReply> {
  const expected = expectedRead(request);
  const readKnownSize = mount.provider.readKnownSize?.bind(mount.provider);
  if (!expected || !readKnownSize) return replyWithFile(request, reply, mount, path, { attachment: false });
  const controller = new AbortController();
  const abort = () => controller.abort();
  reply.raw.once('close', abort);
  const { body, mtime } = await readKnownSize(path, { ...expected, signal: controller.signal });
  if (!mtime) {
    // Without the backend's date there is no ETag to send: ask the usual way. An unread HTTP body emits
    // an error when destroyed; without a listener it would end the process.
    body.on('error', () => undefined).destroy();
    reply.raw.off('close', abort);
    return replyWithFile(request, reply, mount, path, { attachment: false });
  }
  const plan = planFileResponse(
    'GET',
    request.headers,
    { name: nameOf(path), size: expected.size, mtime },
    { attachment: false },
  );
  return reply.status(plan.status).headers(plan.headers).send(body);
}

/** The same answer on a plain node:http server (the probe's loopback source). */
export async function serveFileRaw(
  request: IncomingMessage,
  response: ServerResponse,
  mount: OpenMount,
  path: MountPath,
): Promise<void> {
  const plan = await planFor(request.method ?? 'GET', request.headers, mount, path, { attachment: false });
  response.writeHead(plan.status, plan.headers);
  if (!plan.range) {
    response.end();
    return;
  }
  const stream = await mount.provider.read(path, { range: plan.range });
  await pipeline(stream, response).catch(() => undefined);
}
