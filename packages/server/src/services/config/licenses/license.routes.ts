import {
  activateLicenseRequestSchema,
  editionUpgradeRequestSchema,
  licenseIdParamsSchema,
  licenseStatusResponseSchema,
} from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import type { GatewayRule } from '../../../platform/http/route-auth.js';
import type { LicenseService } from './license.service.js';

/** The console's licence page: administrators only (`license` is not delegable). */
const LICENSE_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['license'] };

/** Licence routes of the config service; GET /api/license/status is in deployment.routes.ts. */
export function registerLicenseRoutes(app: AppServer, licenses: LicenseService): void {
  app.post(
    '/api/license/activate',
    {
      config: { auth: { gateway: LICENSE_ADMIN } },
      schema: { body: activateLicenseRequestSchema, response: { 200: licenseStatusResponseSchema } },
    },
    async (request) => licenses.activate(request.body.code, request.identity, request.clientIp),
  );
  app.post(
    '/api/license/refresh',
    {
      config: { auth: { gateway: LICENSE_ADMIN } },
      schema: { response: { 200: licenseStatusResponseSchema } },
    },
    async () => {
      await licenses.refresh();
      return licenses.status();
    },
  );
  app.post(
    '/api/admin/licenses/:id/edition',
    {
      config: { auth: { gateway: LICENSE_ADMIN } },
      schema: {
        params: licenseIdParamsSchema,
        body: editionUpgradeRequestSchema,
        response: { 200: licenseStatusResponseSchema },
      },
    },
    async (request) =>
      licenses.upgradeEdition(request.params.id, request.body.lease, request.identity, request.clientIp),
  );
}
