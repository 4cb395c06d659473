import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { allEndpoints, routerPath, type EndpointDeclaration, type GatewayRule } from '@svc/contracts';
import { CONFIG_ROUTES } from './table/config.table.js';
import { MEDIA_ROUTES } from './table/media.table.js';

export interface GatewayRouteEntry {
  methods: readonly ('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE')[];
  /** find-my-way pattern: ':param' for one segment, a trailing '*' for a whole subtree. */
  path: string;
  rule: GatewayRule;
}

/**
 * Every route of the public API with the rule the gateway enforces before forwarding. A request that
 * matches no entry is answered 404 here and never reaches a service; service-to-service routes
 * (`/api/<service>/internal/...`, the registry) are deliberately absent. The route audit test checks
 * this table against the routes the services declare. Each service's part lives in table/.
 */
export const GATEWAY_ROUTE_TABLE: readonly GatewayRouteEntry[] = [
  ...gatewayEntries(allEndpoints),
  ...CONFIG_ROUTES,
  ...MEDIA_ROUTES,
];

/** The gateway's entries of the declared endpoints: every endpoint whose rule is a gateway rule. */
export function gatewayEntries(declared: readonly EndpointDeclaration[]): GatewayRouteEntry[] {
  return declared.flatMap((endpoint) =>
    'gateway' in endpoint.auth
      ? [{ methods: [endpoint.method], path: routerPath(endpoint.path), rule: endpoint.auth.gateway }]
      : [],
  );
}

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
