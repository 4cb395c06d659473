import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { identitySchema, type Identity, type Permission } from '@svc/contracts';
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

/** What the gateway demands before it forwards a public API request. */
export type GatewayRule =
  | { kind: 'public' }
  /** Console: X-Admin-Token of an account holding any of the permissions ('any': any console account). */
  | { kind: 'admin'; anyOf: readonly Permission[] | 'any' }
  /** Portal, MCP and clients: Authorization: Bearer <access token>. */
  | { kind: 'access' }
  /** Either token of a signed-in account (for "me" routes and sign-out). */
  | { kind: 'account' }
  /** The route checks a node token itself (install scripts, binaries). */
  | { kind: 'node-token' }
  /** The route checks the inbound webhook token itself. */
  | { kind: 'webhook-token' };

/** How a route of a service may be reached. Every route declares one (config.auth); the route audit checks it. */
export type RouteAuth =
  /** Health and liveness probes: no credential. */
  | { direct: 'health' }
  /** The public entrances (frontend and gateway), which apply the gateway rule table themselves. */
  | { direct: 'entrance' }
  /**
   * Maintenance routes of the internal port, which listens on loopback only. Loopback is no credential
   * (a server-side fetcher such as a webhook runs there too): these routes require the service token.
   */
  | { direct: 'loopback' }
  /**
   * The play-agent's client protocol: players connect directly and the play-agent resolves their token
   * itself (`signed-in`), or the route is open before sign-in (`anonymous`: server info, sign-in).
   */
  | { direct: 'player'; access: 'anonymous' | 'signed-in' }
  /** Reached directly by nodes or installers with a credential the route checks itself. */
  | { direct: 'own-credential'; credential: 'node-token' | 'registry-token' }
  /** Reached through the gateway, which enforced the rule; the service token proves it. */
  | { gateway: GatewayRule }
  /** Service-to-service only. */
  | { service: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
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
): void {
  app.decorateRequest('identity', null);
  app.decorateRequest('clientIp', '');
  app.decorateRequest('fromService', false);

  app.addHook('onRoute', (route: RouteOptions) => {
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
