import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import type { DashboardService } from './dashboard.service.js';
import { actorOf } from './request-actor.js';
import type { WebPlaybackService } from './web-playback.service.js';

/** Console routes of the dashboard (`dashboard`) and the system configuration (`settings`). */
export function registerConsoleRoutes(
  app: AppServer,
  services: { dashboard: DashboardService; webPlayback: WebPlaybackService },
): void {
  const { dashboard, webPlayback } = services;

  serve(app, endpoints.user.listDashboardSessions, async () => dashboard.activeSessions());
  serve(app, endpoints.user.setWebPlayer, async (request) =>
    webPlayback.setSystemEnabled(actorOf(request), request.body.enabled),
  );
}
