import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import type { AppServer } from './create-server.js';
import { AppError, errorBody } from './errors.js';

/** Proxy timeouts: long uploads, long reads and SSE streams pass; a dead upstream does not hang forever. */
export const PROXY_TIMEOUT_MS = 600_000;

class BodyTooLargeError extends Error {
  readonly statusCode = 413;
}

/** Requests whose streamed body overflowed; the proxy error handler answers them with 413. */
const overflowed = new WeakSet<object>();

/** Counts request bytes as they stream through and fails the stream beyond the limit. */
class BodyLimiter extends Transform {
  private seen = 0;
  constructor(
    private readonly limit: number,
    private readonly owner: object,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) {
      overflowed.add(this.owner);
      callback(new BodyTooLargeError(`request body exceeds ${this.limit} bytes`));
      return;
    }
    callback(null, chunk);
  }
}

export interface StreamingProxyOptions {
  /** Bytes a request body may carry; undefined means unlimited. */
  bodyLimit?: number;
}

/**
 * Makes an app a streaming reverse proxy: request bodies are passed through unparsed and
 * unbuffered (with an optional size limit), responses are streamed back as they arrive.
 */
export async function enableStreamingProxy(app: AppServer, options: StreamingProxyOptions): Promise<void> {
  await app.register(replyFrom, {
    undici: {
      connections: 256,
      pipelining: 1,
      headersTimeout: PROXY_TIMEOUT_MS,
      bodyTimeout: PROXY_TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    },
    disableRequestLogging: true,
    maxRetriesOn503: 0,
  });

  const limit = options.bodyLimit;
  if (limit !== undefined) answerExpectContinue(app, limit);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (request, payload, done) => {
    if (limit === undefined) {
      done(null, payload);
      return;
    }
    if (declaredLength(request.raw) > limit) {
      done(new AppError(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`), undefined);
      return;
    }
    const limiter = new BodyLimiter(limit, request.raw);
    payload.on('error', (error) => limiter.destroy(error));
    done(null, payload.pipe(limiter));
  });
}

function declaredLength(request: IncomingMessage): number {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) ? declared : 0;
}

/**
 * `Expect: 100-continue` (curl sends it for bodies over 1 MB): a body that fits is invited with
 * 100 Continue; one declared too large is refused (413, by the body parser) before the client sends it.
 */
function answerExpectContinue(app: AppServer, limit: number): void {
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (declaredLength(request) <= limit) response.writeContinue();
    app.server.emit('request', request, response);
  });
}

/** Request headers that describe the client's connection to us, not the hop to the upstream. */
const HOP_REQUEST_HEADERS = ['expect', 'keep-alive', 'upgrade', 'proxy-connection', 'te', 'trailer'];
/** Response headers of the upstream connection; this listener sets its own for the client's. */
const HOP_RESPONSE_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade'];

function without(
  headers: Record<string, string | string[] | undefined>,
  names: readonly string[],
): Record<string, string | string[] | undefined> {
  const copy = { ...headers };
  for (const name of names) delete copy[name];
  return copy;
}

export interface ForwardOptions {
  /** Extra or replaced request headers. */
  requestHeaders?: (
    headers: Record<string, string | string[] | undefined>,
  ) => Record<string, string | string[] | undefined>;
  /** Extra response headers, e.g. to disable buffering in front proxies for event streams. */
  responseHeaders?: (
    headers: Record<string, string | string[] | undefined>,
  ) => Record<string, string | string[] | undefined>;
}

/** Appends the peer address to X-Forwarded-For and sets X-Real-IP when absent. */
export function forwardedHeaders(
  request: FastifyRequest,
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  const peer = request.socket.remoteAddress ?? '';
  const prior = headers['x-forwarded-for'];
  const chain = [typeof prior === 'string' ? prior : Array.isArray(prior) ? prior.join(', ') : '', peer]
    .filter(Boolean)
    .join(', ');
  return {
    ...headers,
    'x-forwarded-for': chain,
    'x-real-ip': typeof headers['x-real-ip'] === 'string' ? headers['x-real-ip'] : peer,
    'x-forwarded-proto':
      typeof headers['x-forwarded-proto'] === 'string' ? headers['x-forwarded-proto'] : 'http',
  };
}

/**
 * How long a forward keeps trying an upstream that refuses connections (a restarting service) before
 * 502: as long as the registry still lists an instance that stopped beating (INSTANCE_LIVENESS_MS of
 * the config service), so a request waits for the restarted node rather than failing in the gap.
 */
export const UPSTREAM_RESTART_WAIT_MS = 30_000;
/** Connection failures after the request may have reached the upstream. */
const DROPPED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * When to try a forward again after a connection failure: a restarting service refuses connections
 * for a moment, and a kept-alive connection to a process that died fails on first use. Only requests
 * without a body (a streamed body cannot be sent twice) are tried again: a refused connection never
 * got the request; a dropped one may have, so only idempotent methods are repeated after it.
 */
function restartRetry(request: FastifyRequest, startedAt: number) {
  // Called for answers too (err undefined), though the types of @fastify/reply-from say otherwise.
  return ({ err, attempt }: { err?: Error & { code?: string }; attempt: number }): number | null => {
    const code = err?.code;
    if (code === undefined || request.body !== undefined) return null;
    if (code !== 'ECONNREFUSED' && !(DROPPED.has(code) && IDEMPOTENT.has(request.method))) return null;
    const delay = Math.min(1_000, 50 * 2 ** attempt);
    return Date.now() - startedAt + delay <= UPSTREAM_RESTART_WAIT_MS ? delay : null;
  };
}

/** Streams the request to upstreamBase + the request's own path and query. */
export function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  upstreamBase: string,
  options: ForwardOptions = {},
): FastifyReply {
  return reply.from(`${upstreamBase}${request.url}`, {
    rewriteRequestHeaders: (req, headers) => {
      const withForwarding = forwardedHeaders(req as FastifyRequest, without(headers, HOP_REQUEST_HEADERS));
      return options.requestHeaders ? options.requestHeaders(withForwarding) : withForwarding;
    },
    rewriteHeaders: (headers) => {
      const own = without(headers, HOP_RESPONSE_HEADERS);
      return options.responseHeaders ? options.responseHeaders(own) : own;
    },
    retryDelay: restartRetry(request, Date.now()),
    onError: (proxyReply, { error }) => {
      const cause = error as Error & { statusCode?: number; cause?: unknown };
      if (overflowed.has(request.raw)) {
        void proxyReply
          .header('connection', 'close')
          .status(413)
          .send(errorBody('PAYLOAD_TOO_LARGE', 'request body is too large'));
        return;
      }
      const status = cause.statusCode === 504 ? 504 : 502;
      request.log.warn({ upstream: upstreamBase, err: cause.message }, 'upstream request failed');
      void proxyReply
        .status(status)
        .send(errorBody('UPSTREAM_UNAVAILABLE', 'the upstream service did not answer'));
    },
  });
}
