import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { notFound } from '../../../platform/http/errors.js';
import type { NodeProbeClient } from './node-probe.client.js';
import type { NodesRepository } from './nodes.repository.js';

/** The console's startup-probe routes: only play-agent nodes have one; the node answers. */
export function registerNodeProbeRoutes(
  app: AppServer,
  deps: { nodes: Pick<NodesRepository, 'get'>; client: NodeProbeClient },
): void {
  const playAgent = async (nodeId: string) => {
    const node = await deps.nodes.get(nodeId);
    if (node?.service_type !== 'svc-play-agent') throw notFound('play-agent node');
    return nodeId;
  };
  serve(app, endpoints.nodeProbe.getStartupProbeStatus, async (request) =>
    deps.client.status(await playAgent(request.params.nodeId)),
  );
  serve(app, endpoints.nodeProbe.recheckStartupProbe, async (request) =>
    deps.client.recheck(await playAgent(request.params.nodeId)),
  );
}
