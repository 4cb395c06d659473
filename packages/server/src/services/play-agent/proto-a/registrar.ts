import type { FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import type { z } from 'zod';
import type { AppServer } from '../../../platform/http/create-server.js';
import type { ProtoADeclaration } from './declarations.js';

type Output<S> = S extends z.ZodType ? z.output<S> : unknown;

/** The request of a declared PROTO_A route: query and body validated (names normalised) by its schemas. */
export type ProtoARequest<D extends ProtoADeclaration> = FastifyRequest<{
  Querystring: Output<D['query']>;
  Body: Output<D['body']>;
}>;

/**
 * Registers a declared PROTO_A route under each of its paths: methods, query and body schemas, the access
 * rule (`config.auth`) and the endpoint id (`config.endpoint`, `proto-a.<Name>`) all come from the
 * declaration. `preValidation` runs before the schemas, so the protocol switch and the token are checked
 * first, as players expect (503 or 401 before 400).
 */
export function registerProtoA<D extends ProtoADeclaration>(
  app: AppServer,
  declaration: D,
  options: {
    preValidation?: RouteOptions['preValidation'];
    handler: (request: ProtoARequest<D>, reply: FastifyReply) => Promise<unknown>;
  },
): void {
  for (const url of declaration.paths) {
    app.route({
      method: declaration.method as HTTPMethods | HTTPMethods[],
      url,
      schema: {
        ...(declaration.query ? { querystring: declaration.query } : {}),
        ...(declaration.body ? { body: declaration.body } : {}),
      },
      config: {
        auth: { direct: 'player', access: declaration.access },
        endpoint: declaration.id,
      },
      ...(options.preValidation ? { preValidation: options.preValidation } : {}),
      handler: (request, reply) => options.handler(request as ProtoARequest<D>, reply),
    });
  }
}
