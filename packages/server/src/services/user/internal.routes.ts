import type { FastifyReply } from 'fastify';
import {
  ACTIVITY_BATCH_MAX_BYTES,
  activityBatchRequestSchema,
  latestActivityQuerySchema,
  latestActivityResponseSchema,
  introspectRequestSchema,
  introspectResponseSchema,
  playbackLoginRequestSchema,
  playbackLoginResponseSchema,
  playbackLogoutRequestSchema,
  playbackPolicyResponseSchema,
  playbackUserParamsSchema,
  playbackUserSchema,
  recordAuditRequestSchema,
  usageReportRequestSchema,
  userIdParamsSchema,
  userSetupFactsSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { AccessPolicyService } from './access-policy.service.js';
import type { ActivityLogService } from './activity-log.service.js';
import type { AuditService } from './audit.service.js';
import type { DashboardService } from './dashboard.service.js';
import { LoginLockedError, type AuthService } from './auth.service.js';
import type { PlaybackAuthService } from './playback-auth.service.js';

/** Adds Retry-After to a 429 LOGIN_LOCKED before the error handler writes the body. */
const retryAfter =
  (reply: FastifyReply) =>
  (error: unknown): never => {
    if (error instanceof LoginLockedError) void reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  };

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
  const config = { auth: { service: true } } as const;

  // The config service's first-run checklist of the console dashboard.
  app.get(
    '/api/auth/internal/setup-facts',
    { config, schema: { response: { 200: userSetupFactsSchema } } },
    async () => dashboard.setupFacts(),
  );

  app.post(
    '/api/auth/internal/introspect',
    { config, schema: { body: introspectRequestSchema, response: { 200: introspectResponseSchema } } },
    async (request) => auth.introspect(request.body),
  );
  app.post(
    '/api/auth/internal/usage',
    { config, schema: { body: usageReportRequestSchema } },
    async (request, reply) => {
      await access.recordUsage(request.body);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/auth/internal/users/:id/playback-policy',
    { config, schema: { params: userIdParamsSchema, response: { 200: playbackPolicyResponseSchema } } },
    async (request) => access.playbackPolicy(request.params.id),
  );
  app.post(
    '/api/auth/internal/audit',
    { config, schema: { body: recordAuditRequestSchema } },
    async (request, reply) => {
      await audit.recordFromService(request.body);
      return reply.status(204).send();
    },
  );

  // Playback clients, through the play-agent (docs/auth.md, "Playback clients").
  app.post(
    '/api/auth/internal/playback/login',
    {
      config,
      schema: { body: playbackLoginRequestSchema, response: { 200: playbackLoginResponseSchema } },
    },
    async (request, reply) => playback.login(request.body).catch(retryAfter(reply)),
  );
  app.post(
    '/api/auth/internal/playback/logout',
    { config, schema: { body: playbackLogoutRequestSchema } },
    async (request, reply) => {
      await playback.logout(request.body.tokenId);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/auth/internal/playback/users/:id',
    { config, schema: { params: playbackUserParamsSchema, response: { 200: playbackUserSchema } } },
    async (request) => playback.user(request.params.id),
  );
  // The activity log (docs/activity-log.md).
  app.post(
    '/api/auth/internal/activity',
    { config, bodyLimit: ACTIVITY_BATCH_MAX_BYTES, schema: { body: activityBatchRequestSchema } },
    async (request, reply) => {
      await activity.record(request.body);
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/auth/internal/activity',
    {
      config,
      schema: { querystring: latestActivityQuerySchema, response: { 200: latestActivityResponseSchema } },
    },
    async (request) => ({ events: await activity.latest(request.query.userId, request.query.limit) }),
  );
}
