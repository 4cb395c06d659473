import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../../platform/http/errors.js';
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

export type RangeRequest =
  { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Reads a Range header (RFC 9110 section 14). One range of the forms `a-b`, `a-` and `-n` is served as
 * 206; an unsatisfiable one is 416. Several ranges or an unreadable header are ignored (200 with the
 * whole file), as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(size - suffix, 0), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (!Number.isSafeInteger(start) || (last !== '' && Number(last) < start)) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}

export function etagOf(file: FileFacts): string {
  return `"${file.size.toString(16)}-${Math.floor(file.mtime.getTime()).toString(16)}"`;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mkv': 'video/x-matroska',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.avi': 'video/x-msvideo',
  '.webm': 'video/webm',
  '.ts': 'video/mp2t',
  '.m2ts': 'video/mp2t',
  '.wmv': 'video/x-ms-wmv',
  '.flv': 'video/x-flv',
  '.mpg': 'video/mpeg',
  '.mpeg': 'video/mpeg',
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.wav': 'audio/wav',
  '.srt': 'application/x-subrip',
  '.ass': 'text/x-ssa',
  '.ssa': 'text/x-ssa',
  '.vtt': 'text/vtt',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.nfo': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function httpDate(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString();
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
    headers['content-disposition'] = contentDisposition(file.name);
    headers['content-security-policy'] = "default-src 'none'; sandbox";
  }
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (
    typeof ifNoneMatch === 'string' &&
    ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
  ) {
    return { status: 304, headers, range: null };
  }
  let rangeHeader = typeof requestHeaders.range === 'string' ? requestHeaders.range : undefined;
  const ifRange = requestHeaders['if-range'];
  if (rangeHeader !== undefined && typeof ifRange === 'string') {
    const matches = ifRange.startsWith('"') ? ifRange === etag : ifRange === lastModified;
    if (!matches) rangeHeader = undefined;
  }
  const request = parseRange(rangeHeader, file.size);
  const head = method === 'HEAD';
  const contentType =
    options.attachment && contentTypeOf(file.name).startsWith('text/')
      ? 'application/octet-stream'
      : contentTypeOf(file.name);
  if (request.kind === 'unsatisfiable') {
    return {
      status: 416,
      headers: { ...headers, 'content-range': `bytes */${file.size}`, 'content-type': 'application/json' },
      range: null,
    };
  }
  headers['content-type'] = contentType;
  if (request.kind === 'partial') {
    const { start, end } = request.range;
    headers['content-range'] = `bytes ${start}-${end}/${file.size}`;
    headers['content-length'] = String(end - start + 1);
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
