import { z } from 'zod';
import {
  listInstancesResponseSchema,
  registerInstanceRequestSchema,
  registeredServiceSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { RegistryService } from './registry.service.js';

export function registerRegistryRoutes(app: AppServer, registry: RegistryService): void {
  app.post(
    '/api/config/registry/instances',
    { config: { auth: { service: true } }, schema: { body: registerInstanceRequestSchema } },
    async (request, reply) => {
      await registry.register(request.body);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/config/registry/instances',
    {
      config: { auth: { service: true } },
      schema: {
        querystring: z.object({
          service: registeredServiceSchema.optional(),
          nodeId: z.string().max(64).optional(),
        }),
        response: { 200: listInstancesResponseSchema },
      },
    },
    async (request) => ({ instances: await registry.liveInstances(request.query) }),
  );
}
