import { Readable } from 'node:stream';
import type { onSendAsyncHookHandler } from 'fastify';

/**
 * Keeps a file's Content-Length on HEAD. A declared endpoint is served by a GET route, and Fastify answers
 * HEAD through that route's automatic twin, which sets Content-Length: 0 when the handler sends no body (as
 * the file answer does for HEAD). An empty stream instead is drained by the twin and keeps the headers.
 */
export const keepHeadLength: onSendAsyncHookHandler<unknown> = async (request, _reply, payload) =>
  request.method === 'HEAD' && payload === undefined ? Readable.from([]) : payload;
