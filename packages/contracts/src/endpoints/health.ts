import { healthResponseSchema } from '../health.js';
import { declareEndpoints } from '../endpoint.js';

const probe = {
  method: 'GET',
  tag: 'Health',
  auth: { direct: 'health' },
  response: healthResponseSchema,
  errors: ['SERVICE_UNAVAILABLE'],
} as const;

/** Health probes every service answers (docs/architecture.md); 503 with the same document when a check is DOWN. */
export const healthEndpoints = declareEndpoints('shared', {
  health: { ...probe, path: '/health', summary: 'Health of this service and its checks' },
  actuatorHealth: {
    ...probe,
    path: '/actuator/health',
    summary: 'Health of the config service at the address the spec names for it',
  },
  storagePing: {
    ...probe,
    path: '/api/storage/ping',
    summary: 'Health of a storage node at its public ping address',
  },
});
