import type { Permission } from './permissions.js';

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

/** How a route of a service may be reached. Every endpoint declares one; the route audit checks it. */
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
