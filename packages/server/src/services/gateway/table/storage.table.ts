import type { GatewayRule } from '../../../platform/http/route-auth.js';
import type { GatewayRouteEntry } from '../route-table.js';

/** The file manager of the console: the menu permission `storage` (docs/storage.md). */
const STORAGE_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['storage'] };
/** The console dashboard: the menu permission `dashboard`. */
const DASHBOARD: GatewayRule = { kind: 'admin', anyOf: ['dashboard'] };

/**
 * Storage node routes of the public API (forwarded to the node named by X-Storage-Node-Id). The internal
 * API (/api/storage/internal/...) is service-to-service only and deliberately absent.
 */
export const STORAGE_ROUTES: readonly GatewayRouteEntry[] = [
  { methods: ['GET'], path: '/api/storage/ping', rule: { kind: 'public' } },
  // Mounts.
  { methods: ['GET'], path: '/api/storage/providers', rule: STORAGE_ADMIN },
  { methods: ['GET', 'POST'], path: '/api/storage/mounts', rule: STORAGE_ADMIN },
  { methods: ['GET', 'PATCH', 'DELETE'], path: '/api/storage/mounts/:mountId', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/check', rule: STORAGE_ADMIN },
  // Files (GET also answers HEAD).
  { methods: ['GET'], path: '/api/storage/mounts/:mountId/browse', rule: STORAGE_ADMIN },
  { methods: ['GET'], path: '/api/storage/mounts/:mountId/stat', rule: STORAGE_ADMIN },
  { methods: ['GET'], path: '/api/storage/mounts/:mountId/download', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/mkdir', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/rename', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/delete', rule: STORAGE_ADMIN },
  // Chunked uploads.
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/uploads', rule: STORAGE_ADMIN },
  { methods: ['GET', 'DELETE'], path: '/api/storage/mounts/:mountId/uploads/:uploadId', rule: STORAGE_ADMIN },
  {
    methods: ['PUT'],
    path: '/api/storage/mounts/:mountId/uploads/:uploadId/chunks/:index',
    rule: STORAGE_ADMIN,
  },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/uploads/:uploadId/complete', rule: STORAGE_ADMIN },
  // Transfers and their event stream.
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/copy', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/mounts/:mountId/move', rule: STORAGE_ADMIN },
  { methods: ['GET'], path: '/api/storage/transfers', rule: STORAGE_ADMIN },
  { methods: ['GET'], path: '/api/storage/transfers/:transferId', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/transfers/:transferId/cancel', rule: STORAGE_ADMIN },
  { methods: ['POST'], path: '/api/storage/transfers/:transferId/retry', rule: STORAGE_ADMIN },
  { methods: ['GET'], path: '/api/storage/mounts/transfer/events', rule: STORAGE_ADMIN },
  // Console dashboard: the space of each mount of the node.
  { methods: ['GET'], path: '/api/storage/dashboard/usage', rule: DASHBOARD },
];
