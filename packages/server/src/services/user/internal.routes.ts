import {
  introspectRequestSchema,
  introspectResponseSchema,
  playbackPolicyResponseSchema,
  recordAuditRequestSchema,
  usageReportRequestSchema,
  userIdParamsSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { AccessPolicyService } from './access-policy.service.js';
import type { AuditService } from './audit.service.js';
import type { AuthService } from './auth.service.js';

/** Service-to-service routes (service token only; never routed by the gateway). */
export function registerInternalRoutes(
  app: AppServer,
  services: { auth: AuthService; access: AccessPolicyService; audit: AuditService },
): void {
  const { auth, access, audit } = services;
  const config = { auth: { service: true } } as const;

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
}
