import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
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
  serve(app, endpoints.config.getDashboardSetup, async () => setup.setup());
  serve(app, endpoints.config.getDashboardHealth, async () => health.health());
}
