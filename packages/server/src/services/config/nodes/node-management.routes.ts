import { endpoints, type NodeLifecycleAction, type NodeView } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import { settableFields } from '../../../platform/audit/audit-details.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve, type EndpointRequest } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { NodeLifecycleService } from './node-lifecycle.service.js';
import type { NodeManagementService } from './node-management.service.js';

/** The fields of a node an administrator sets (not its live state), for the audit log. */
const settable = (view: NodeView) =>
  settableFields(view, [
    'name',
    'serviceType',
    'scope',
    'expectedHost',
    'expectedPort',
    'listenPort',
    'note',
    'disabled',
  ]);
const nodeTarget = (nodeId: string) => ({ type: 'node', id: nodeId });

/** Node management (console) and the public address a play-agent looks up. See docs/nodes.md. */
export function registerNodeManagementRoutes(
  app: AppServer,
  nodes: NodeManagementService,
  lifecycle: NodeLifecycleService,
  audit: AuditClient,
): void {
  serve(app, endpoints.config.listNodes, async () => nodes.list());
  serve(app, endpoints.config.createNode, async (request, reply) => {
    const created = await nodes.create(request.body, identityOf(request));
    const { node } = created;
    const after = { ...settable(node), externalAddress: node.externalAddress?.url ?? null };
    await audit.record(request, {
      action: 'node.create',
      target: nodeTarget(node.nodeId),
      before: null,
      after,
    });
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });
  serve(app, endpoints.config.getNode, async (request) => nodes.get(request.params.nodeId));
  serve(app, endpoints.config.updateNode, async (request) => {
    const target = nodeTarget(request.params.nodeId);
    const before = await nodes.get(request.params.nodeId);
    const after = await nodes.update(request.params.nodeId, request.body, identityOf(request));
    const { externalAddress, ...others } = request.body;
    if (Object.values(others).some((value) => value !== undefined)) {
      await audit.record(request, {
        action: 'node.update',
        target,
        before: settable(before),
        after: settable(after),
      });
    }
    if (externalAddress !== undefined) {
      const address = (view: NodeView) => ({ externalAddress: view.externalAddress?.url ?? null });
      await audit.record(request, {
        action: 'node.external-address',
        target,
        before: address(before),
        after: address(after),
      });
    }
    return after;
  });
  serve(app, endpoints.config.deleteNode, async (request) => {
    const before = await nodes.get(request.params.nodeId);
    const removed = await lifecycle.remove(
      request.params.nodeId,
      request.query.sendUninstall,
      request.identity,
    );
    await audit.record(request, {
      action: 'node.delete',
      target: nodeTarget(request.params.nodeId),
      before: settable(before),
      after: null,
      details: { uninstall: removed.uninstall },
    });
    return removed;
  });
  // "Show full command": the only answer with the tokens in full (besides the creation's).
  serve(app, endpoints.config.getNodeCredentials, async (request, reply) => {
    const credentials = await nodes.credentials(request.params.nodeId);
    await audit.record(request, {
      action: 'node.credentials-reveal',
      target: nodeTarget(request.params.nodeId),
    });
    return reply.header('cache-control', 'no-store').send(credentials);
  });
  serve(app, endpoints.config.regenerateEndpointToken, async (request, reply) => {
    const answer = await nodes.regenerateEndpointToken(request.params.nodeId);
    await audit.record(request, {
      action: 'node.endpoint-token-regenerate',
      target: nodeTarget(request.params.nodeId),
    });
    return reply.header('cache-control', 'no-store').send(answer);
  });

  // Remote upgrade and uninstall (docs/node-install.md): the ONLINE node runs its own script, detached.
  const lifecycleCall =
    (action: NodeLifecycleAction) =>
    async (
      request: EndpointRequest<typeof endpoints.config.upgradeNode | typeof endpoints.config.uninstallNode>,
    ) => {
      const accepted = await lifecycle.lifecycle(request.params.nodeId, action);
      await audit.record(request, { action: `node.${action}`, target: nodeTarget(request.params.nodeId) });
      return accepted;
    };
  serve(app, endpoints.config.upgradeNode, lifecycleCall('upgrade'));
  serve(app, endpoints.config.uninstallNode, lifecycleCall('uninstall'));

  // A play-agent without public_base_url looks its public address up here (service token).
  serve(app, endpoints.config.getNodePublicAddress, async (request) =>
    nodes.publicAddress(request.params.nodeId),
  );
}
