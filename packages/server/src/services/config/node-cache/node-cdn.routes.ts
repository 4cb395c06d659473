import { endpoints, type CdnHostStatus, type CdnMeasurement, type CdnStatus } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodeCacheService } from './node-cache.service.js';

/**
 * The console's DRIVE_B CDN routes of a play-agent node (docs/drives.md): each forwarded live to the node,
 * which keeps the state; the declared response schemas check what comes back.
 */
export function registerNodeCdnRoutes(app: AppServer, cache: NodeCacheService): void {
  const routes = endpoints.nodeCdn;
  serve(
    app,
    routes.getNodeCdnStatus,
    async (request) =>
      (await cache.forward(request.params.nodeId, 'GET', 'status', undefined, 'cdn')) as CdnStatus,
  );
  serve(
    app,
    routes.probeNodeCdn,
    async (request) =>
      (await cache.forward(request.params.nodeId, 'POST', 'probe', request.body, 'cdn')) as CdnStatus,
  );
  serve(
    app,
    routes.measureNodeCdnIp,
    async (request) =>
      (await cache.forward(
        request.params.nodeId,
        'POST',
        'measure-ip',
        request.body,
        'cdn',
      )) as CdnMeasurement,
  );
  serve(
    app,
    routes.setNodeCdnManual,
    async (request) =>
      (await cache.forward(request.params.nodeId, 'POST', 'manual', request.body, 'cdn')) as CdnHostStatus,
  );
}
