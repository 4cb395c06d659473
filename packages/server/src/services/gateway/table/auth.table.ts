import type { GatewayRule } from '../../../platform/http/route-auth.js';
import type { GatewayRouteEntry } from '../route-table.js';

const PUBLIC: GatewayRule = { kind: 'public' };
const ACCOUNT: GatewayRule = { kind: 'account' };
const USER_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['user'] };
const SETTINGS_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['settings'] };

/** User service routes of the public API. */
export const AUTH_ROUTES: readonly GatewayRouteEntry[] = [
  { methods: ['GET'], path: '/api/auth/branding', rule: PUBLIC },
  // The saved logo image (login page and favicon, before sign-in).
  { methods: ['GET'], path: '/api/auth/branding/logo/:file', rule: PUBLIC },
  // First run and sign-in.
  { methods: ['GET'], path: '/api/auth/setup/status', rule: PUBLIC },
  { methods: ['POST'], path: '/api/auth/setup/admin', rule: PUBLIC },
  { methods: ['POST'], path: '/api/auth/login', rule: PUBLIC },
  // The signed-in account itself.
  { methods: ['POST'], path: '/api/auth/logout', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/auth/me', rule: ACCOUNT },
  { methods: ['PUT'], path: '/api/auth/me/password', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/auth/me/web-playback', rule: ACCOUNT },
  { methods: ['GET'], path: '/api/auth/me/usage', rule: ACCOUNT },
  // User management.
  { methods: ['GET', 'POST'], path: '/api/auth/admin/users', rule: USER_ADMIN },
  { methods: ['GET', 'PATCH', 'DELETE'], path: '/api/auth/admin/users/:id', rule: USER_ADMIN },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/permissions', rule: USER_ADMIN },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/node-access', rule: USER_ADMIN },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/library-access', rule: USER_ADMIN },
  { methods: ['PUT'], path: '/api/auth/admin/users/:id/quotas', rule: USER_ADMIN },
  { methods: ['GET'], path: '/api/auth/admin/users/:id/usage', rule: USER_ADMIN },
  { methods: ['GET'], path: '/api/auth/admin/audit-log', rule: { kind: 'admin', anyOf: ['audit'] } },
  // Console dashboard: playback sessions going on now.
  {
    methods: ['GET'],
    path: '/api/auth/admin/dashboard/sessions',
    rule: { kind: 'admin', anyOf: ['dashboard'] },
  },
  // System configuration: the global web playback switch.
  {
    methods: ['PUT'],
    path: '/api/auth/admin/branding/web-player',
    rule: { kind: 'admin', anyOf: ['settings'] },
  },
  // System configuration: system name, logo, defaults for new users (docs/settings.md).
  { methods: ['GET', 'PUT'], path: '/api/auth/admin/branding', rule: SETTINGS_ADMIN },
  { methods: ['PUT'], path: '/api/auth/admin/branding/logo', rule: SETTINGS_ADMIN },
  { methods: ['GET', 'PUT'], path: '/api/auth/admin/traffic-quotas/default-policy', rule: SETTINGS_ADMIN },
  { methods: ['GET', 'PUT'], path: '/api/auth/admin/node-access-policy', rule: SETTINGS_ADMIN },
  { methods: ['GET', 'PUT'], path: '/api/auth/admin/library-access-policy', rule: SETTINGS_ADMIN },
  // The playback report: 'reports' (administrators only) or 'user'.
  {
    methods: ['GET', 'PUT'],
    path: '/api/auth/admin/reports/*',
    rule: { kind: 'admin', anyOf: ['reports', 'user'] },
  },
  // The activity log's retention, set on the report page (same rule).
  {
    methods: ['GET', 'PUT'],
    path: '/api/auth/admin/activity-log/retention',
    rule: { kind: 'admin', anyOf: ['reports', 'user'] },
  },
];
