import type { FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import type { z } from 'zod';
import type { AppServer } from '../../../platform/http/create-server.js';
import { badRequest, type AppError } from '../../../platform/http/errors.js';
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
      // A refused value is answered here, naming the parameter or field (players' logs show the message).
      attachValidation: true,
      handler: (request, reply) => {
        if (request.validationError) throw invalidRequest(request.validationError);
        return options.handler(request as ProtoARequest<D>, reply);
      },
    });
  }
}

/** 400 VALIDATION_FAILED whose message names what was refused: `query Limit: must be a whole number`. */
function invalidRequest(error: {
  validation?: readonly { instancePath: string; message?: string }[];
  validationContext?: string;
}): AppError {
  const where = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request');
  const issues = (error.validation ?? []).map((issue) => ({
    path: issue.instancePath,
    message: issue.message ?? 'not valid',
  }));
  const named = issues.map(
    ({ path, message }) => `${path.replace(/^\//, '').replace(/\//g, '.') || where}: ${message}`,
  );
  return badRequest(`${where} ${named.join('; ') || 'not valid'}`.slice(0, 500), issues);
}
