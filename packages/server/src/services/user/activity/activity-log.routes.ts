import { ACTIVITY_BATCH_MAX_BYTES, endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { ActivityLogService } from './activity-log.service.js';

/** The activity log the play-agents write (service token only; docs/activity-log.md). */
export function registerActivityLogRoutes(app: AppServer, activity: ActivityLogService): void {
  const user = endpoints.user;
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
