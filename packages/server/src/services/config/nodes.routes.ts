import { z } from 'zod';
import { resolveEndpointRequestSchema, resolveEndpointResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { NodesService } from './nodes.service.js';

const idsQuery = z.object({
  ids: z
    .string()
    .max(10_000)
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.string().max(64)).max(200)),
});

const nodesResponse = z.object({
  nodes: z.array(
    z.object({
      nodeId: z.string(),
      serviceType: z.enum(['svc-control-storage', 'svc-play-agent', 'manual-play-agent-endpoint']),
      name: z.string(),
      scope: z.enum(['EMBEDDED', 'EXTERNAL']),
      /** PENDING until the first heartbeat; offline once heartbeats stopped for 30 s (computed on read). */
      status: z.enum(['PENDING', 'ONLINE', 'offline']),
      lastHeartbeatAt: z.string().nullable(),
      disabled: z.boolean(),
    }),
  ),
});

/** Node facts other services need (the user service validating an allow list, the play-agent's entrances). */
export function registerNodeDirectoryRoutes(app: AppServer, nodes: NodesService): void {
  app.get(
    '/api/config/internal/nodes',
    {
      config: { auth: { service: true } },
      schema: { querystring: idsQuery, response: { 200: nodesResponse } },
    },
    async (request) => ({ nodes: await nodes.directory(request.query.ids) }),
  );

  app.post(
    '/api/config/internal/endpoints/resolve',
    {
      config: { auth: { service: true } },
      schema: { body: resolveEndpointRequestSchema, response: { 200: resolveEndpointResponseSchema } },
    },
    async (request) => nodes.resolveEndpoint(request.body.token),
  );
}
