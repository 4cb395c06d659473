import { dashboardHealthResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { DashboardHealthService } from './dashboard-health.service.js';

/** The console dashboard's health overview (menu permission `dashboard`). See docs/nodes.md. */
export function registerDashboardRoutes(app: AppServer, health: DashboardHealthService): void {
  app.get(
    '/api/config/dashboard/health',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } },
      schema: { response: { 200: dashboardHealthResponseSchema } },
    },
    async () => health.health(),
  );
}
