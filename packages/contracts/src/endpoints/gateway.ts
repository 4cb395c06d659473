import { z } from 'zod';
import { declareEndpoints } from '../endpoint.js';

/** Endpoints the gateway answers itself (docs/architecture.md "Endpoints"). */
export const gatewayEndpoints = declareEndpoints('gateway', {
  getOpenApiDocument: {
    method: 'GET',
    path: '/api/openapi.json',
    summary: 'The OpenAPI 3.1 document of the admin and portal API',
    tag: 'Reference',
    auth: { direct: 'entrance' },
    response: z.record(z.string(), z.unknown()),
    errors: [],
  },
});
