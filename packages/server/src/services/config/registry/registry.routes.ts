import { REGISTRY_TOKEN_HEADER, endpoints } from '@svc/contracts';
import type { FastifyRequest } from 'fastify';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { forbidden, unauthorized } from '../../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { REGISTRY_TOKEN_MISMATCH, type RegistryService } from './registry.service.js';

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function registerRegistryRoutes(app: AppServer, registry: RegistryService): void {
  // The heartbeat is reached directly by nodes, which may hold only their registry token
  // (X-SVC-Registry-Token); control components send the service token (X-SVC-Service-Token). A registry
  // token, when sent, decides on its own: a wrong one is refused even next to a valid service token.
  serve(
    app,
    endpoints.config.registerInstance,
    async (request, reply) => {
      const registryToken = headerValue(request, REGISTRY_TOKEN_HEADER);
      await registry.register(
        request.body,
        registryToken === undefined
          ? { kind: 'service-token' }
          : { kind: 'registry-token', token: registryToken },
      );
      return reply.status(204).send();
    },
    {
      // Before the body is validated: a caller without any credential learns nothing about the body.
      onRequest: async (request) => {
        const registryToken = headerValue(request, REGISTRY_TOKEN_HEADER);
        const serviceToken = headerValue(request, SERVICE_TOKEN_HEADER);
        if (registryToken === undefined && serviceToken === undefined) {
          throw unauthorized('registry token or service token required');
        }
        if (registryToken === undefined && !request.fromService) throw forbidden(REGISTRY_TOKEN_MISMATCH);
      },
    },
  );

  serve(app, endpoints.config.listInstances, async (request) => ({
    instances: await registry.liveInstances(request.query),
  }));
}
