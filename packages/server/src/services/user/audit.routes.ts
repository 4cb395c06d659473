import { auditLogQuerySchema, auditLogResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { AuditService } from './audit.service.js';

/** The audit log page: console accounts holding the menu permission `audit`. */
export function registerAuditRoutes(app: AppServer, audit: AuditService): void {
  app.get(
    '/api/auth/admin/audit-log',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['audit'] } } },
      schema: { querystring: auditLogQuerySchema, response: { 200: auditLogResponseSchema } },
    },
    async (request) => audit.list(request.query),
  );
}
