import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import {
  routerPath,
  type EndpointBody,
  type EndpointDeclaration,
  type EndpointParams,
  type EndpointQuery,
  type EndpointResponseInput,
} from '@svc/contracts';
import type { AppServer } from './create-server.js';

/** The request a handler of a declared endpoint receives: params, query and body already validated. */
export type EndpointRequest<E extends EndpointDeclaration> = FastifyRequest<{
  Params: EndpointParams<E>;
  Querystring: EndpointQuery<E>;
  Body: EndpointBody<E>;
}>;

/** A handler returns the success body (serialized through the declared response schema) or sends itself. */
export type EndpointHandler<E extends EndpointDeclaration> = (
  request: EndpointRequest<E>,
  reply: FastifyReply,
) => Promise<EndpointResponseInput<E> | FastifyReply | undefined | void>;

/** Route options a declaration does not carry: limits and hooks of this one route. */
export type EndpointRouteOptions = Pick<
  RouteOptions,
  'bodyLimit' | 'onRequest' | 'preHandler' | 'preValidation' | 'onSend' | 'logLevel' | 'exposeHeadRoute'
> & {
  /** Extra route config (the declaration's auth and id are added). */
  config?: Record<string, unknown>;
};

/**
 * Registers the route that serves a declared endpoint: method, path, validation of params, query and
 * body, the response schema and the access rule all come from the declaration (docs/architecture.md).
 */
export function serve<E extends EndpointDeclaration>(
  app: AppServer,
  endpoint: E,
  handler: EndpointHandler<E>,
  options: EndpointRouteOptions = {},
): void {
  const { config, ...routeOptions } = options;
  const status = endpoint.status ?? 200;
  app.route({
    ...routeOptions,
    method: endpoint.method,
    url: routerPath(endpoint.path),
    schema: {
      ...(endpoint.params ? { params: endpoint.params } : {}),
      ...(endpoint.query ? { querystring: endpoint.query } : {}),
      ...(endpoint.body && !endpoint.consumes ? { body: endpoint.body } : {}),
      ...(endpoint.response ? { response: { [status]: endpoint.response } } : {}),
    },
    config: { ...config, auth: endpoint.auth, endpoint: endpoint.id },
    handler: async (request, reply) => {
      if (status !== 200) void reply.status(status);
      return handler(request as unknown as EndpointRequest<E>, reply);
    },
  });
}
