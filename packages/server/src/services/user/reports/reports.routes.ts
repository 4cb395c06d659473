import {
  activityRetentionResponseSchema,
  reportConcurrentResponseSchema,
  reportDevicesResponseSchema,
  reportDeviceUsersQuerySchema,
  reportDeviceUsersResponseSchema,
  reportHeatmapResponseSchema,
  reportInactiveUsersQuerySchema,
  reportInactiveUsersResponseSchema,
  reportMediaWatchersQuerySchema,
  reportMediaWatchersResponseSchema,
  reportOverviewResponseSchema,
  reportRankingQuerySchema,
  reportSeriesQuerySchema,
  reportTimelineResponseSchema,
  reportTopMediaResponseSchema,
  reportTopUsersResponseSchema,
  reportUserParamsSchema,
  reportUserQuerySchema,
  reportUserResponseSchema,
  reportWindowQuerySchema,
  setActivityRetentionRequestSchema,
} from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import type { GatewayRule } from '../../../platform/http/route-auth.js';
import { actorOf } from '../request-actor.js';
import type { ReportsService } from './reports.service.js';
import type { RetentionService } from './retention.service.js';

/** The playback report and its retention setting: menu permission `reports` (administrators) or `user`. */
export const REPORTS_RULE: GatewayRule = { kind: 'admin', anyOf: ['reports', 'user'] };

const PREFIX = '/api/auth/admin/reports';

/** Routes of the playback report (docs/report.md). */
export function registerReportRoutes(
  app: AppServer,
  services: { reports: ReportsService; retention: RetentionService },
): void {
  const { reports, retention } = services;
  const config = { auth: { gateway: REPORTS_RULE } };

  app.get(
    `${PREFIX}/overview`,
    {
      config,
      schema: { querystring: reportWindowQuerySchema, response: { 200: reportOverviewResponseSchema } },
    },
    async (request) => reports.overview(request.query),
  );
  app.get(
    `${PREFIX}/timeline`,
    {
      config,
      schema: { querystring: reportSeriesQuerySchema, response: { 200: reportTimelineResponseSchema } },
    },
    async (request) => reports.timeline(request.query),
  );
  app.get(
    `${PREFIX}/concurrent`,
    {
      config,
      schema: { querystring: reportSeriesQuerySchema, response: { 200: reportConcurrentResponseSchema } },
    },
    async (request) => reports.concurrent(request.query),
  );
  app.get(
    `${PREFIX}/heatmap`,
    {
      config,
      schema: { querystring: reportWindowQuerySchema, response: { 200: reportHeatmapResponseSchema } },
    },
    async (request) => reports.heatmap(request.query),
  );
  app.get(
    `${PREFIX}/top-users`,
    {
      config,
      schema: { querystring: reportRankingQuerySchema, response: { 200: reportTopUsersResponseSchema } },
    },
    async (request) => reports.topUsers(request.query),
  );
  app.get(
    `${PREFIX}/top-media`,
    {
      config,
      schema: { querystring: reportRankingQuerySchema, response: { 200: reportTopMediaResponseSchema } },
    },
    async (request) => reports.topMedia(request.query),
  );
  app.get(
    `${PREFIX}/inactive-users`,
    {
      config,
      schema: {
        querystring: reportInactiveUsersQuerySchema,
        response: { 200: reportInactiveUsersResponseSchema },
      },
    },
    async (request) => reports.inactiveUsers(request.query),
  );
  app.get(
    `${PREFIX}/devices`,
    {
      config,
      schema: { querystring: reportWindowQuerySchema, response: { 200: reportDevicesResponseSchema } },
    },
    async (request) => reports.devices(request.query),
  );
  app.get(
    `${PREFIX}/user/:userId`,
    {
      config,
      schema: {
        params: reportUserParamsSchema,
        querystring: reportUserQuerySchema,
        response: { 200: reportUserResponseSchema },
      },
    },
    async (request) => reports.user(request.params.userId, request.query),
  );
  app.get(
    `${PREFIX}/media-watchers`,
    {
      config,
      schema: {
        querystring: reportMediaWatchersQuerySchema,
        response: { 200: reportMediaWatchersResponseSchema },
      },
    },
    async (request) => reports.mediaWatchers(request.query),
  );
  app.get(
    `${PREFIX}/device-users`,
    {
      config,
      schema: {
        querystring: reportDeviceUsersQuerySchema,
        response: { 200: reportDeviceUsersResponseSchema },
      },
    },
    async (request) => reports.deviceUsers(request.query),
  );

  app.get(
    '/api/auth/admin/activity-log/retention',
    { config, schema: { response: { 200: activityRetentionResponseSchema } } },
    async () => retention.get(),
  );
  app.put(
    '/api/auth/admin/activity-log/retention',
    {
      config,
      schema: { body: setActivityRetentionRequestSchema, response: { 200: activityRetentionResponseSchema } },
    },
    async (request) => retention.set(actorOf(request), request.body.days),
  );
}
