import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodeCacheRuntime } from './node-cache-runtime.js';

/** The node's cache routes the config service calls with the service token (docs/vfs-cache.md). */
export function registerNodeCacheRoutes(app: AppServer, runtime: NodeCacheRuntime): void {
  const routes = endpoints.playAgentCache;
  serve(app, routes.applyCacheConfig, async (request, reply) => {
    await runtime.apply(request.body.config);
    return reply.status(204).send();
  });
  serve(app, routes.getCacheDiskUsage, async () => runtime.diskUsage());
  serve(app, routes.listVfsItems, async (request) => runtime.list(request.query));
  serve(app, routes.deleteVfsItems, async (request) => runtime.remove(request.body));
  serve(app, routes.flushCaches, async () => runtime.flush());
}
