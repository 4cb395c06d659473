import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from './errors.js';

/** True when the URL holds a percent-escape that does not decode (`%ff`, `%zz`, a lone `%`). */
export function hasMalformedEscape(url: string): boolean {
  if (!url.includes('%')) return false;
  try {
    decodeURIComponent(url);
    return false;
  } catch {
    return true;
  }
}

/**
 * Refuses a URL whose query holds a malformed escape with 400 before any route sees it (the router
 * refuses a malformed path itself, answered by `answerFrameworkError`): a proxy could not forward it.
 */
export async function refuseMalformedUrl(request: FastifyRequest): Promise<void> {
  if (hasMalformedEscape(request.url)) {
    throw new AppError(400, 'BAD_REQUEST', 'the request URL holds a malformed percent-escape');
  }
}

/** Fastify's own refusals before routing (a malformed path, an over-long parameter) in the common error body. */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = error.statusCode ?? 500;
  void reply
    .status(status)
    .send(
      status >= 500 ? errorBody('INTERNAL_ERROR', 'internal error') : errorBody('BAD_REQUEST', error.message),
    );
}
