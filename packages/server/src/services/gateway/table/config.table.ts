import type { GatewayRouteEntry } from '../route-table.js';

/** Config service routes of the public API. */
export const CONFIG_ROUTES: readonly GatewayRouteEntry[] = [
  // Legacy-node report and promotion, standalone image only (docs/nodes.md "Legacy nodes").
  {
    methods: ['GET'],
    path: '/api/config/deployment/legacy-nodes/report',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  {
    methods: ['POST'],
    path: '/api/config/deployment/legacy-nodes/promote',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  // System configuration: playback protocol, response cache, global DRIVE_A redirect switch.
  {
    methods: ['GET', 'PUT'],
    path: '/api/config/play-agent/policy',
    rule: { kind: 'admin', anyOf: ['settings'] },
  },
  // Logo upload of the system configuration page: kept until saved with PUT /api/auth/admin/branding/logo.
  { methods: ['POST'], path: '/api/config/uploads/image', rule: { kind: 'admin', anyOf: ['settings'] } },
  // The MCP switch (the gateway answers /mcp 404 while it is off).
  {
    methods: ['GET', 'PUT'],
    path: '/api/config/system-settings/mcp',
    rule: { kind: 'admin', anyOf: ['settings'] },
  },
  // Console dashboard: registered services and nodes with their state (docs/nodes.md).
  { methods: ['GET'], path: '/api/config/dashboard/health', rule: { kind: 'admin', anyOf: ['dashboard'] } },
  // Console dashboard: what is left to do before users can play (docs/web.md).
  { methods: ['GET'], path: '/api/config/dashboard/setup', rule: { kind: 'admin', anyOf: ['dashboard'] } },
  // Licences (docs/licences.md): activation with a one-time code, refresh, edition upgrade.
  { methods: ['POST'], path: '/api/license/activate', rule: { kind: 'admin', anyOf: ['license'] } },
  { methods: ['POST'], path: '/api/license/refresh', rule: { kind: 'admin', anyOf: ['license'] } },
  { methods: ['POST'], path: '/api/admin/licenses/:id/edition', rule: { kind: 'admin', anyOf: ['license'] } },
  // Node management (docs/nodes.md): records, "show full command", manual addresses' endpoint tokens.
  { methods: ['GET', 'POST'], path: '/api/config/nodes', rule: { kind: 'admin', anyOf: ['node'] } },
  {
    methods: ['GET', 'PATCH', 'DELETE'],
    path: '/api/config/nodes/:nodeId',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  {
    methods: ['GET'],
    path: '/api/config/nodes/:nodeId/credentials',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  {
    methods: ['POST'],
    path: '/api/config/nodes/:nodeId/endpoint-token',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  // Remote upgrade and uninstall of an ONLINE worker node (docs/node-install.md).
  { methods: ['POST'], path: '/api/config/nodes/:nodeId/upgrade', rule: { kind: 'admin', anyOf: ['node'] } },
  {
    methods: ['POST'],
    path: '/api/config/nodes/:nodeId/uninstall',
    rule: { kind: 'admin', anyOf: ['node'] },
  },
  // Install scripts and node binaries (docs/node-install.md): the routes check the node token themselves.
  { methods: ['GET'], path: '/api/config/nodes/install/:token/:kind', rule: { kind: 'node-token' } },
  { methods: ['GET'], path: '/api/config/binaries/:service', rule: { kind: 'node-token' } },
  { methods: ['GET'], path: '/api/config/binaries/status', rule: { kind: 'admin', anyOf: ['node'] } },
  // The playback route URLs of the signed-in account (portal or console token).
  { methods: ['GET'], path: '/api/config/me/playback-routes', rule: { kind: 'account' } },
];
