import type { protoA } from './declarations.js';
import type { ProtoARequest } from './registrar.js';

type SignInRequest = ProtoARequest<typeof protoA.AuthenticateUserByName>;

/**
 * The fields of a `Users/AuthenticateByName` request, names matched case-insensitively by the route's
 * schemas. Players post them as JSON or a form; Emby for Kodi sends `username` and `pw` as query
 * parameters with no body, so a sign-in without a body reads the query (the logger redacts `pw` and
 * `password` from logged URLs).
 */
export function signInFields(
  request: SignInRequest,
): SignInRequest['query'] | NonNullable<SignInRequest['body']> {
  return request.body ?? request.query;
}
