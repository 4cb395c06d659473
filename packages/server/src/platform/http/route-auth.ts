import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { identitySchema, type Identity, type Permission, type RouteAuth } from '@svc/contracts';
import { SERVICE_TOKEN_HEADER, secretsEqual } from '../service-token.js';
import { errorBody, unauthorized } from './errors.js';

/** Header with the caller's identity, set by the gateway; trusted only together with the service token. */
export const IDENTITY_HEADER = 'x-svc-identity';
/** Header with the client address an entrance determined; trusted only together with the service token. */
export const CLIENT_IP_HEADER = 'x-svc-client-ip';
/**
 * Header with the host (and port) the client reached the public entrance with (a trusted proxy's
 * X-Forwarded-Host, else Host); trusted only together with the service token.
 */
export const ENTRANCE_HOST_HEADER = 'x-svc-entrance-host';
/** Headers only a service may set: the entrances drop them from what a client sent. */
const INTERNAL_HEADERS = [
  SERVICE_TOKEN_HEADER,
  IDENTITY_HEADER,
  CLIENT_IP_HEADER,
  ENTRANCE_HOST_HEADER,
] as const;

/**
 * The request headers an entrance (frontend, gateway) passes on: the internal headers a client sent
 * are dropped, the service token, the client address and the entrance host it determined are set.
 */
export function entranceHeaders(
  headers: Record<string, string | string[] | undefined>,
  serviceToken: string,
  clientIp: string,
  entranceHost?: string,
): Record<string, string | string[] | undefined> {
  const copy = { ...headers };
  for (const name of INTERNAL_HEADERS) delete copy[name];
  copy[SERVICE_TOKEN_HEADER] = serviceToken;
  copy[CLIENT_IP_HEADER] = clientIp;
  if (entranceHost !== undefined) copy[ENTRANCE_HOST_HEADER] = entranceHost;
  return copy;
}

export type { GatewayRule, RouteAuth } from '@svc/contracts';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The id of the endpoint declaration the route serves (`<service>.<action>`). */
    endpoint?: string;
  }
  interface FastifyRequest {
    /** The signed-in account, when the gateway established one. */
    identity: Identity | null;
    /** The client's address: from the service (frontend, gateway) that forwarded the request, else the socket peer. */
    clientIp: string;
    /** True when the caller presented the service token. */
    fromService: boolean;
  }
}

export interface DeclaredRoute {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
}

function decodeIdentity(header: unknown): Identity | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > 8192) return null;
  try {
    const parsed = identitySchema.safeParse(JSON.parse(Buffer.from(header, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function encodeIdentity(identity: Identity): string {
  return Buffer.from(JSON.stringify(identity), 'utf8').toString('base64url');
}

/**
 * Installs per-route access control on a service listener and records every route with its rule
 * (for the route audit). Routes without a rule are refused at registration in the audit test and
 * answer 500 at run time rather than being open by accident.
 */
export function installRouteAuth(
  app: { addHook: (name: 'onRoute', hook: (route: RouteOptions) => void) => unknown } & {
    decorateRequest: (name: string, value: unknown) => unknown;
    addHook: (
      name: 'onRequest',
      hook: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
    ) => unknown;
  },
  serviceToken: string,
  routes: DeclaredRoute[],
  allowUndeclaredRoutes = false,
): void {
  app.decorateRequest('identity', null);
  app.decorateRequest('clientIp', '');
  app.decorateRequest('fromService', false);

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!allowUndeclaredRoutes) refuseUndeclared(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' && route.config?.auth === undefined) continue;
      routes.push({ method, url: route.url, auth: route.config?.auth });
    }
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const given = request.headers[SERVICE_TOKEN_HEADER];
    request.fromService = typeof given === 'string' && given.length > 0 && secretsEqual(given, serviceToken);
    const forwardedIp = request.headers[CLIENT_IP_HEADER];
    request.clientIp =
      request.fromService && typeof forwardedIp === 'string' && forwardedIp
        ? forwardedIp
        : (request.socket.remoteAddress ?? '');
    request.identity = request.fromService ? decodeIdentity(request.headers[IDENTITY_HEADER]) : null;

    const auth = request.routeOptions.config?.auth;
    if (auth === undefined) {
      // Unknown routes (404) have no options; a declared route without a rule is a programming error.
      if (request.routeOptions.url === undefined) return;
      await reply.status(500).send(errorBody('INTERNAL_ERROR', 'route has no access rule'));
      return;
    }
    if (!requiresServiceToken(auth)) return;
    if (!request.fromService) {
      await reply
        .status(typeof given === 'string' && given.length > 0 ? 403 : 401)
        .send(
          errorBody(
            typeof given === 'string' && given.length > 0 ? 'FORBIDDEN' : 'UNAUTHORIZED',
            'service token required',
          ),
        );
      return;
    }
    if ('gateway' in auth) {
      const rule = auth.gateway;
      const needsAccount = rule.kind === 'admin' || rule.kind === 'access' || rule.kind === 'account';
      const wrongKind =
        (rule.kind === 'admin' && request.identity?.tokenKind !== 'admin') ||
        (rule.kind === 'access' && request.identity?.tokenKind !== 'access');
      if (needsAccount && (!request.identity || wrongKind)) {
        await reply.status(401).send(errorBody('UNAUTHORIZED', 'sign-in required'));
        return;
      }
      if (rule.kind === 'admin' && request.identity && !holdsAny(request.identity, rule.anyOf)) {
        await reply
          .status(403)
          .send(errorBody('FORBIDDEN', 'this account lacks the permission for this page'));
      }
    }
  });
}

/**
 * A route serves a declared endpoint (`serve()` sets `config.endpoint`), or it is an entrance's catch-all
 * proxy, which forwards rather than serves. Anything else is a programming error, caught at start-up.
 */
function refuseUndeclared(route: RouteOptions): void {
  if (route.config?.endpoint !== undefined) return;
  const auth = route.config?.auth;
  if (auth !== undefined && 'direct' in auth && auth.direct === 'entrance') return;
  const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
  throw new Error(
    `route ${methods} ${route.url} has no endpoint declaration (docs/architecture.md "Endpoints")`,
  );
}

/**
 * Whether a route refuses callers without the service token. Only the rules open by design skip it: health
 * probes, the public entrances, the players' protocol and routes that check a node's own credential.
 */
export function requiresServiceToken(auth: RouteAuth): boolean {
  return !('direct' in auth) || auth.direct === 'loopback';
}

/** The signed-in account of a route whose rule requires one (the route auth already refused others). */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw unauthorized('sign-in required');
  return request.identity;
}

export function holdsAny(identity: Identity, anyOf: readonly Permission[] | 'any'): boolean {
  if (identity.role === 'admin') return true;
  if (anyOf === 'any') return identity.permissions.length > 0;
  return anyOf.some((permission) => identity.permissions.includes(permission));
}
