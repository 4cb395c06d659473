import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { AuditService } from './audit.service.js';

/** The audit log page: console accounts holding the menu permission `audit`. */
export function registerAuditRoutes(app: AppServer, audit: AuditService): void {
  serve(app, endpoints.user.listAuditLog, async (request) => audit.list(request.query));
  // Audit records of the other services (service token only).
  serve(app, endpoints.user.recordAudit, async (request, reply) => {
    await audit.recordFromService(request.body);
    return reply.send();
  });
}
