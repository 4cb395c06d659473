import type { GatewayRouteEntry } from '../route-table.js';

/** Config service routes of the public API. */
export const CONFIG_ROUTES: readonly GatewayRouteEntry[] = [
  { methods: ['GET'], path: '/api/license/status', rule: { kind: 'public' } },
  { methods: ['GET'], path: '/api/config/deployment/capabilities', rule: { kind: 'public' } },
];
