import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { LicenseService } from './license.service.js';

/** Licence routes of the config service; GET /api/license/status is in deployment.routes.ts. */
export function registerLicenseRoutes(app: AppServer, licenses: LicenseService): void {
  serve(app, endpoints.config.activateLicense, async (request) =>
    licenses.activate(request.body.code, request.identity, request.clientIp),
  );
  serve(app, endpoints.config.refreshLicense, async () => {
    await licenses.refresh();
    return licenses.status();
  });
  serve(app, endpoints.config.upgradeLicenseEdition, async (request) =>
    licenses.upgradeEdition(request.params.id, request.body.lease, request.identity, request.clientIp),
  );
}
