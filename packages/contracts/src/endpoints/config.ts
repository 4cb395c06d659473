import { capabilitiesResponseSchema, licenseStatusResponseSchema } from '../deployment.js';
import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the config service (docs/architecture.md "Endpoints"). */
export const configEndpoints = declareEndpoints('config', {
  getCapabilities: {
    method: 'GET',
    path: '/api/config/deployment/capabilities',
    summary: 'Edition, form and capabilities of this install',
    tag: 'Deployment',
    auth: { gateway: { kind: 'public' } },
    response: capabilitiesResponseSchema,
    errors: [],
  },
  getLicenseStatus: {
    method: 'GET',
    path: '/api/license/status',
    summary: 'Licence state shown before sign-in',
    tag: 'Licences',
    auth: { gateway: { kind: 'public' } },
    response: licenseStatusResponseSchema,
    errors: [],
  },
});
