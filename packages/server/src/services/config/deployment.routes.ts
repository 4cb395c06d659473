import { capabilitiesResponseSchema, licenseStatusResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { DeploymentService } from './deployment.service.js';

export function registerDeploymentRoutes(app: AppServer, deployment: DeploymentService): void {
  app.get(
    '/api/config/deployment/capabilities',
    {
      config: { auth: { gateway: { kind: 'public' } } },
      schema: { response: { 200: capabilitiesResponseSchema } },
    },
    async () => deployment.capabilities(),
  );
  app.get(
    '/api/license/status',
    {
      config: { auth: { gateway: { kind: 'public' } } },
      schema: { response: { 200: licenseStatusResponseSchema } },
    },
    async () => deployment.licenseStatus(),
  );
}
