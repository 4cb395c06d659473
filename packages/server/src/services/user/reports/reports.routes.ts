import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { actorOf } from '../request-actor.js';
import type { ReportsService } from './reports.service.js';
import type { RetentionService } from './retention.service.js';

/** Routes of the playback report (docs/report.md): menu permission `reports` (administrators) or `user`. */
export function registerReportRoutes(
  app: AppServer,
  services: { reports: ReportsService; retention: RetentionService },
): void {
  const { reports, retention } = services;
  const user = endpoints.user;

  serve(app, user.reportOverview, async (request) => reports.overview(request.query));
  serve(app, user.reportTimeline, async (request) => reports.timeline(request.query));
  serve(app, user.reportConcurrent, async (request) => reports.concurrent(request.query));
  serve(app, user.reportHeatmap, async (request) => reports.heatmap(request.query));
  serve(app, user.reportTopUsers, async (request) => reports.topUsers(request.query));
  serve(app, user.reportTopMedia, async (request) => reports.topMedia(request.query));
  serve(app, user.reportInactiveUsers, async (request) => reports.inactiveUsers(request.query));
  serve(app, user.reportDevices, async (request) => reports.devices(request.query));
  serve(app, user.reportUser, async (request) => reports.user(request.params.userId, request.query));
  serve(app, user.reportMediaWatchers, async (request) => reports.mediaWatchers(request.query));
  serve(app, user.reportDeviceUsers, async (request) => reports.deviceUsers(request.query));
  // A play-agent's cache asks how popular an item is (docs/vfs-cache.md, "Playback").
  serve(app, user.reportMediaViewerCount, async (request) => reports.mediaViewerCount(request.query.mediaId));

  serve(app, user.getActivityRetention, async () => retention.get());
  serve(app, user.setActivityRetention, async (request) =>
    retention.set(actorOf(request), request.body.days),
  );
}
