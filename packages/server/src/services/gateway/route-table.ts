import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { GatewayRule } from '../../platform/http/route-auth.js';

export interface GatewayRouteEntry {
  methods: readonly ('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE')[];
  /** find-my-way pattern: ':param' for one segment, a trailing '*' for a whole subtree. */
  path: string;
  rule: GatewayRule;
}

const PUBLIC: GatewayRule = { kind: 'public' };
const ACCOUNT: GatewayRule = { kind: 'account' };
const userAdmin: GatewayRule = { kind: 'admin', anyOf: ['user'] };
const auditAdmin: GatewayRule = { kind: 'admin', anyOf: ['audit'] };

/**
 * Every route of the public API with the rule the gateway enforces before forwarding. A request that
 * matches no entry is answered 404 here and never reaches a service; service-to-service routes
 * (`/api/<service>/internal/...`, the registry) are deliberately absent. The route audit test checks
 * this table against the routes the services declare.
 */
export const GATEWAY_ROUTE_TABLE: readonly GatewayRouteEntry[] = [
  // Health and facts shown before sign-in.
  { methods: ['GET'], path: '/api/license/status', rule: PUBLIC },
  { methods: ['GET'], path: '/api/config/deployment/capabilities', rule: PUBLIC },
  { methods: ['GET'], path: '/api/storage/ping', rule: PUBLIC },
  { methods: ['GET'], path: '/api/auth/branding', rule: PUBLIC },
  // First run and sign-in.
  { methods: ['GET'], path: '/api/auth/setup/status', rule: PUBLIC },
  { methods: ['POST'], path: '/api/auth/setup/admin', rule: PUBLIC },
  { methods: ['POST'], path: '/api/auth/login', rule: PUBLIC },
  // The signed-in account itself.
  { methods: ['POST'], path: '/api/auth/logout', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/auth/me', rule: ACCOUNT },
  { methods: ['PUT'], path: '/api/auth/me/password', rule: ACCOUNT },
  // User management.
  { methods: ['GET', 'POST'], path: '/api/auth/admin/users', rule: userAdmin },
  { methods: ['GET', 'PATCH', 'DELETE'], path: '/api/auth/admin/users/:id', rule: userAdmin },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/permissions', rule: userAdmin },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/node-access', rule: userAdmin },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/quotas', rule: userAdmin },
  { methods: ['GET'], path: '/api/auth/admin/users/:id/usage', rule: userAdmin },
  { methods: ['GET'], path: '/api/auth/admin/audit-log', rule: auditAdmin },
  // The playback report: 'reports' (administrators only) or 'user'.
  {
    methods: ['GET', 'PUT'],
    path: '/api/auth/admin/reports/*',
    rule: { kind: 'admin', anyOf: ['reports', 'user'] },
  },
];

export interface MatchedRoute {
  entry: GatewayRouteEntry;
}

/** Matches requests against the table with the same router Fastify uses. */
export class GatewayRouteMatcher {
  private readonly router = FindMyWay<HTTPVersion.V1>({ caseSensitive: true, ignoreTrailingSlash: false });

  constructor(table: readonly GatewayRouteEntry[] = GATEWAY_ROUTE_TABLE) {
    for (const entry of table) {
      for (const method of entry.methods) {
        this.router.on(method, entry.path, () => undefined, { entry });
      }
    }
  }

  match(method: string, path: string): GatewayRouteEntry | undefined {
    const found = this.router.find(method === 'HEAD' ? 'GET' : (method as 'GET'), path);
    return (found?.store as { entry: GatewayRouteEntry } | undefined)?.entry;
  }
}
