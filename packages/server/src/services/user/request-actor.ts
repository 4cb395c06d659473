import type { FastifyRequest } from 'fastify';
import type { Identity } from '@svc/contracts';
import { unauthorized } from '../../platform/http/errors.js';
import type { Actor } from './actor.js';

/** The signed-in account of a route whose rule requires one (the route auth already refused others). */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw unauthorized('sign-in required');
  return request.identity;
}

export function actorOf(request: FastifyRequest): Actor {
  return { identity: identityOf(request), clientIp: request.clientIp };
}
