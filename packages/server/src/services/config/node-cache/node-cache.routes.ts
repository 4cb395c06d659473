import {
  endpoints,
  type CacheFlushResponse,
  type DiskUsageResponse,
  type VfsDeleteResponse,
  type VfsItemsResponse,
} from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodeCacheService } from './node-cache.service.js';

/** The cache routes of a play-agent node (console) and the node's own pull (docs/vfs-cache.md). */
export function registerNodeCacheConfigRoutes(
  app: AppServer,
  cache: NodeCacheService,
  audit: AuditClient,
): void {
  const routes = endpoints.nodeCache;
  serve(app, routes.getInternalNodeCacheConfig, async (request) => ({
    config: await cache.get(request.params.nodeId),
  }));
  serve(app, routes.getNodeCacheConfig, async (request) => cache.get(request.params.nodeId));
  serve(app, routes.listNodeCacheDrives, async (request) => cache.drives(request.params.nodeId));
  serve(app, routes.updateNodeCacheConfig, async (request) => {
    const { nodeId } = request.params;
    return audit
      .recordChange(
        request,
        { action: 'node.update', target: { type: 'node', id: nodeId } },
        async () => ({ cacheConfig: await cache.get(nodeId) }),
        async () => ({ cacheConfig: await cache.update(nodeId, request.body) }),
      )
      .then((state) => state.cacheConfig);
  });
  serve(app, routes.syncNodeCacheConfig, async (request) =>
    cache.sync(request.params.nodeId, request.body.targetNodeIds),
  );

  // Forwarded live to the node (the declared response schema checks what comes back).
  serve(
    app,
    routes.getNodeCacheDiskUsage,
    async (request) => (await cache.forward(request.params.nodeId, 'GET', 'disk-usage')) as DiskUsageResponse,
  );
  serve(app, routes.listNodeVfsItems, async (request) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query)) {
      if (value !== undefined) query.set(key, String(value));
    }
    const route = `vfs-items?${query.toString()}`;
    return (await cache.forward(request.params.nodeId, 'GET', route)) as VfsItemsResponse;
  });
  serve(
    app,
    routes.deleteNodeVfsItems,
    async (request) =>
      (await cache.forward(request.params.nodeId, 'POST', 'vfs-delete', request.body)) as VfsDeleteResponse,
  );
  serve(
    app,
    routes.flushNodeCache,
    async (request) =>
      (await cache.forward(request.params.nodeId, 'POST', 'flush', {})) as CacheFlushResponse,
  );
}
