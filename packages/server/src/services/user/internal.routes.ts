import { ACTIVITY_BATCH_MAX_BYTES, endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import type { AccessPolicyService } from './access-policy.service.js';
import type { ActivityLogService } from './activity-log.service.js';
import type { AuditService } from './audit.service.js';
import { retryAfter } from './auth.routes.js';
import type { AuthService } from './auth.service.js';
import type { DashboardService } from './dashboard.service.js';
import type { PlaybackAuthService } from './playback-auth.service.js';

/** Service-to-service routes (service token only; never routed by the gateway). */
export function registerInternalRoutes(
  app: AppServer,
  services: {
    auth: AuthService;
    access: AccessPolicyService;
    audit: AuditService;
    playback: PlaybackAuthService;
    activity: ActivityLogService;
    dashboard: DashboardService;
  },
): void {
  const { auth, access, audit, playback, activity, dashboard } = services;
  const user = endpoints.user;

  // The config service's first-run checklist of the console dashboard.
  serve(app, user.getSetupFacts, async () => dashboard.setupFacts());

  serve(app, user.introspect, async (request) => auth.introspect(request.body));
  serve(app, user.recordUsage, async (request, reply) => {
    await access.recordUsage(request.body);
    return reply.send();
  });
  serve(app, user.getPlaybackPolicy, async (request) => access.playbackPolicy(request.params.id));
  serve(app, user.recordAudit, async (request, reply) => {
    await audit.recordFromService(request.body);
    return reply.send();
  });

  // Playback clients, through the play-agent (docs/auth.md, "Playback clients").
  serve(app, user.playbackLogin, async (request, reply) =>
    playback.login(request.body).catch(retryAfter(reply)),
  );
  serve(app, user.playbackLogout, async (request, reply) => {
    await playback.logout(request.body.tokenId);
    return reply.send();
  });
  serve(app, user.getPlaybackUser, async (request) => playback.user(request.params.id));
  // The activity log (docs/activity-log.md).
  serve(
    app,
    user.recordActivity,
    async (request, reply) => {
      await activity.record(request.body);
      return reply.send();
    },
    { bodyLimit: ACTIVITY_BATCH_MAX_BYTES },
  );
  serve(app, user.listLatestActivity, async (request) => ({
    events: await activity.latest(request.query.userId, request.query.limit),
  }));
}
