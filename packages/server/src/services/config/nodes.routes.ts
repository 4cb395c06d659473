import { z } from 'zod';
import type { AppServer } from '../../platform/http/create-server.js';
import type { NodesRepository } from './nodes.repository.js';

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
    }),
  ),
});

/** Node facts other services need (e.g. the user service validating an allow list). */
export function registerNodeDirectoryRoutes(app: AppServer, nodes: NodesRepository): void {
  app.get(
    '/api/config/internal/nodes',
    {
      config: { auth: { service: true } },
      schema: { querystring: idsQuery, response: { 200: nodesResponse } },
    },
    async (request) => ({ nodes: await nodes.findByIds(request.query.ids) }),
  );
}
