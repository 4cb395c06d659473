import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { DashboardService } from './dashboard.service.js';

/** The console dashboard's playback sessions going on now (menu permission `dashboard`). */
export function registerDashboardRoutes(app: AppServer, dashboard: DashboardService): void {
  serve(app, endpoints.user.listDashboardSessions, async () => dashboard.activeSessions());
  // The config service's first-run checklist of the console dashboard (service token only).
  serve(app, endpoints.user.getSetupFacts, async () => dashboard.setupFacts());
}
