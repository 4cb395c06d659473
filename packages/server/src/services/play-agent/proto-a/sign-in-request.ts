import type { FastifyRequest } from 'fastify';

/**
 * The fields of a `Users/AuthenticateByName` request. Players post them as JSON or a form; Emby for
 * Kodi sends `username` and `pw` as query parameters with no body, so a sign-in without a body reads
 * the query (the logger redacts `pw` and `password` from logged URLs).
 */
export function signInFields(request: FastifyRequest): unknown {
  return request.body ?? request.query ?? {};
}
