import type { FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_TOKEN_HEADER, secretsEqual } from '../service-token.js';
import { errorBody } from './errors.js';

/** preHandler that admits only callers presenting the service token. */
export function requireServiceToken(serviceToken: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const given = request.headers[SERVICE_TOKEN_HEADER];
    if (typeof given !== 'string' || given.length === 0) {
      await reply.status(401).send(errorBody('UNAUTHORIZED', 'service token required'));
      return;
    }
    if (!secretsEqual(given, serviceToken)) {
      await reply.status(403).send(errorBody('FORBIDDEN', 'service token does not match'));
    }
  };
}
