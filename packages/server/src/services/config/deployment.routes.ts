import { capabilitiesResponseSchema, licenseStatusResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { DeploymentService } from './deployment.service.js';

export function registerDeploymentRoutes(app: AppServer, deployment: DeploymentService): void {
  app.get(
    '/api/config/deployment/capabilities',
    { schema: { response: { 200: capabilitiesResponseSchema } } },
    async () => deployment.capabilities(),
  );
  app.get('/api/license/status', { schema: { response: { 200: licenseStatusResponseSchema } } }, async () =>
    deployment.licenseStatus(),
  );
}
