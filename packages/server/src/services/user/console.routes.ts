import {
  dashboardSessionsResponseSchema,
  setWebPlayerRequestSchema,
  webPlayerStateSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { DashboardService } from './dashboard.service.js';
import { actorOf } from './request-actor.js';
import type { WebPlaybackService } from './web-playback.service.js';

/** Console routes of the dashboard (`dashboard`) and the system configuration (`settings`). */
export function registerConsoleRoutes(
  app: AppServer,
  services: { dashboard: DashboardService; webPlayback: WebPlaybackService },
): void {
  const { dashboard, webPlayback } = services;

  app.get(
    '/api/auth/admin/dashboard/sessions',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } },
      schema: { response: { 200: dashboardSessionsResponseSchema } },
    },
    async () => dashboard.activeSessions(),
  );
  app.put(
    '/api/auth/admin/branding/web-player',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } },
      schema: { body: setWebPlayerRequestSchema, response: { 200: webPlayerStateSchema } },
    },
    async (request) => webPlayback.setSystemEnabled(actorOf(request), request.body.enabled),
  );
}
