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

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (request, payload, done) => {
    const limit = options.bodyLimit;
    if (limit === undefined) {
      done(null, payload);
      return;
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      done(new AppError(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`), undefined);
      return;
    }
    const limiter = new BodyLimiter(limit, request.raw);
    payload.on('error', (error) => limiter.destroy(error));
    done(null, payload.pipe(limiter));
  });
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

/** Streams the request to upstreamBase + the request's own path and query. */
export function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  upstreamBase: string,
  options: ForwardOptions = {},
): FastifyReply {
  return reply.from(`${upstreamBase}${request.url}`, {
    rewriteRequestHeaders: (req, headers) => {
      const withForwarding = forwardedHeaders(req as FastifyRequest, headers);
      return options.requestHeaders ? options.requestHeaders(withForwarding) : withForwarding;
    },
    rewriteHeaders: (headers) => (options.responseHeaders ? options.responseHeaders(headers) : headers),
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
