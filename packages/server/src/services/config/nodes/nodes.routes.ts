import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodesService } from './nodes.service.js';

/** Node facts other services need (the user service validating an allow list, the play-agent's entrances). */
export function registerNodeDirectoryRoutes(app: AppServer, nodes: NodesService): void {
  serve(app, endpoints.config.listNodeDirectory, async (request) => ({
    nodes: await nodes.directory(request.query.ids),
  }));
  serve(app, endpoints.config.resolveEndpointToken, async (request) =>
    nodes.resolveEndpoint(request.body.token),
  );
}
