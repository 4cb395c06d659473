import type { GatewayRule } from '../../../platform/http/route-auth.js';
import type { GatewayRouteEntry } from '../route-table.js';

const LIBRARY: GatewayRule = { kind: 'admin', anyOf: ['library'] };
const SETTINGS: GatewayRule = { kind: 'admin', anyOf: ['settings'] };
const ACCOUNT: GatewayRule = { kind: 'account' };

/** Media service routes of the public API. */
export const MEDIA_ROUTES: readonly GatewayRouteEntry[] = [
  // Libraries, their items and scans.
  { methods: ['GET', 'POST'], path: '/api/media/libraries', rule: LIBRARY },
  { methods: ['GET', 'PATCH', 'DELETE'], path: '/api/media/libraries/:id', rule: LIBRARY },
  { methods: ['GET'], path: '/api/media/libraries/:id/items', rule: LIBRARY },
  { methods: ['GET', 'POST'], path: '/api/media/libraries/:id/scan', rule: LIBRARY },
  { methods: ['GET'], path: '/api/media/items/:id', rule: LIBRARY },
  { methods: ['GET'], path: '/api/media/items/:id/images/:type', rule: LIBRARY },
  // The user portal's libraries and items: any signed-in account (docs/media.md, "Portal").
  { methods: ['GET'], path: '/api/media/me/libraries', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/media/me/items', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/media/me/items/:id', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/media/me/items/:id/images/:type', rule: ACCOUNT },
  // Metadata provider and the inbound webhook's token.
  { methods: ['GET', 'PUT'], path: '/api/media/settings/metadata-provider', rule: SETTINGS },
  // Protocol server information players see.
  { methods: ['GET', 'PUT'], path: '/api/media/protocol/proto_a/settings', rule: SETTINGS },
  { methods: ['GET'], path: '/api/media/webhook/token', rule: SETTINGS },
  { methods: ['POST'], path: '/api/media/webhook/token/regenerate', rule: SETTINGS },
  // Outbound webhooks: endpoints, the libraries they can subscribe to, deliveries, test sends.
  { methods: ['GET', 'POST'], path: '/api/media/outbound-webhooks', rule: SETTINGS },
  { methods: ['GET'], path: '/api/media/outbound-webhooks/libraries', rule: SETTINGS },
  { methods: ['GET'], path: '/api/media/outbound-webhooks/deliveries', rule: SETTINGS },
  { methods: ['PUT', 'DELETE'], path: '/api/media/outbound-webhooks/:id', rule: SETTINGS },
  { methods: ['POST'], path: '/api/media/outbound-webhooks/:id/test', rule: SETTINGS },
  // The inbound webhook checks its token itself.
  { methods: ['GET', 'POST'], path: '/api/webhook/:token', rule: { kind: 'webhook-token' } },
];
