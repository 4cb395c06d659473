import { dashboardHealthResponseSchema, dashboardSetupResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { DashboardHealthService } from './dashboard-health.service.js';
import type { DashboardSetupService } from './dashboard-setup.service.js';

/**
 * The console dashboard's health overview (docs/nodes.md) and first-run checklist (docs/web.md), both under
 * the menu permission `dashboard`.
 */
export function registerDashboardRoutes(
  app: AppServer,
  services: { health: DashboardHealthService; setup: DashboardSetupService },
): void {
  const { health, setup } = services;
  app.get(
    '/api/config/dashboard/setup',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } },
      schema: { response: { 200: dashboardSetupResponseSchema } },
    },
    async () => setup.setup(),
  );
  app.get(
    '/api/config/dashboard/health',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } },
      schema: { response: { 200: dashboardHealthResponseSchema } },
    },
    async () => health.health(),
  );
}
