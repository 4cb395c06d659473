import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { DeploymentService } from './deployment.service.js';

export function registerDeploymentRoutes(app: AppServer, deployment: DeploymentService): void {
  serve(app, endpoints.config.getCapabilities, async () => deployment.capabilities());
  serve(app, endpoints.config.getLicenseStatus, async () => deployment.licenseStatus());
}
