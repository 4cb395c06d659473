import type { FastifyRequest } from 'fastify';
import { identityOf } from '../../platform/http/route-auth.js';
import type { Actor } from './accounts/actor.js';

export { identityOf };

export function actorOf(request: FastifyRequest): Actor {
  return { identity: identityOf(request), clientIp: request.clientIp };
}
