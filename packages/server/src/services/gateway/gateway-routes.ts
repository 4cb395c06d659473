import type { RegisteredService } from '@svc/contracts';

export interface GatewayRoute {
  /** Path prefix matched at a segment boundary. */
  prefix: string;
  /** The service that answers it. */
  service: RegisteredService;
}

/** Where the gateway sends each public API prefix; the first match wins. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  { prefix: '/api/auth', service: 'svc-user' },
  { prefix: '/api/media', service: 'svc-media' },
  { prefix: '/api/webhook', service: 'svc-media' },
  { prefix: '/api/config', service: 'svc-config' },
  { prefix: '/api/license', service: 'svc-config' },
  { prefix: '/api/admin/licenses', service: 'svc-config' },
  { prefix: '/api/storage', service: 'svc-control-storage' },
];

export function matchGatewayRoute(path: string): GatewayRoute | undefined {
  return GATEWAY_ROUTES.find((route) => path === route.prefix || path.startsWith(`${route.prefix}/`));
}
