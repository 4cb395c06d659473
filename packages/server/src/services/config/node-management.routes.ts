import {
  createNodeRequestSchema,
  createNodeResponseSchema,
  deleteNodeQuerySchema,
  deleteNodeResponseSchema,
  listNodesResponseSchema,
  nodeCredentialsSchema,
  nodeLifecycleResponseSchema,
  nodeParamsSchema,
  nodePublicAddressResponseSchema,
  nodeViewSchema,
  playbackRoutesResponseSchema,
  type NodeView,
  regenerateEndpointTokenResponseSchema,
  updateNodeRequestSchema,
} from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import { settableFields } from '../../platform/audit/audit-details.js';
import type { AppServer } from '../../platform/http/create-server.js';
import { unauthorized } from '../../platform/http/errors.js';
import { identityOf, type GatewayRule } from '../../platform/http/route-auth.js';
import { forwardedEntranceHost } from '../../platform/http/request-origin.js';
import type { NodeManagementService } from './node-management.service.js';

const NODE_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['node'] };
/** A signed-in account with either token (portal access token, or a console admin token). */
const ACCOUNT: GatewayRule = { kind: 'account' };

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

/** Node management (console) and the playback routes of the signed-in account. See docs/nodes.md. */
export function registerNodeManagementRoutes(
  app: AppServer,
  nodes: NodeManagementService,
  audit: AuditClient,
): void {
  const auth = { auth: { gateway: NODE_ADMIN } };

  app.get(
    '/api/config/nodes',
    { config: auth, schema: { response: { 200: listNodesResponseSchema } } },
    async () => nodes.list(),
  );
  app.post(
    '/api/config/nodes',
    { config: auth, schema: { body: createNodeRequestSchema, response: { 201: createNodeResponseSchema } } },
    async (request, reply) => {
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
    },
  );
  app.get(
    '/api/config/nodes/:nodeId',
    { config: auth, schema: { params: nodeParamsSchema, response: { 200: nodeViewSchema } } },
    async (request) => nodes.get(request.params.nodeId),
  );
  app.patch(
    '/api/config/nodes/:nodeId',
    {
      config: auth,
      schema: { params: nodeParamsSchema, body: updateNodeRequestSchema, response: { 200: nodeViewSchema } },
    },
    async (request) => {
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
    },
  );
  app.delete(
    '/api/config/nodes/:nodeId',
    {
      config: auth,
      schema: {
        params: nodeParamsSchema,
        querystring: deleteNodeQuerySchema,
        response: { 200: deleteNodeResponseSchema },
      },
    },
    async (request) => {
      const before = await nodes.get(request.params.nodeId);
      const removed = await nodes.remove(
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
    },
  );
  // "Show full command": the only answer with the tokens in full (besides the creation's).
  app.get(
    '/api/config/nodes/:nodeId/credentials',
    { config: auth, schema: { params: nodeParamsSchema, response: { 200: nodeCredentialsSchema } } },
    async (request, reply) => {
      const credentials = await nodes.credentials(request.params.nodeId);
      await audit.record(request, {
        action: 'node.credentials-reveal',
        target: nodeTarget(request.params.nodeId),
      });
      return reply.header('cache-control', 'no-store').send(credentials);
    },
  );
  app.post(
    '/api/config/nodes/:nodeId/endpoint-token',
    {
      config: auth,
      schema: { params: nodeParamsSchema, response: { 200: regenerateEndpointTokenResponseSchema } },
    },
    async (request, reply) => {
      const answer = await nodes.regenerateEndpointToken(request.params.nodeId);
      await audit.record(request, {
        action: 'node.endpoint-token-regenerate',
        target: nodeTarget(request.params.nodeId),
      });
      return reply.header('cache-control', 'no-store').send(answer);
    },
  );

  // Remote upgrade and uninstall (docs/node-install.md): the ONLINE node runs its own script, detached.
  for (const action of ['upgrade', 'uninstall'] as const) {
    app.post(
      `/api/config/nodes/:nodeId/${action}`,
      {
        config: auth,
        schema: { params: nodeParamsSchema, response: { 202: nodeLifecycleResponseSchema } },
      },
      async (request, reply) => {
        const accepted = await nodes.lifecycle(request.params.nodeId, action);
        await audit.record(request, { action: `node.${action}`, target: nodeTarget(request.params.nodeId) });
        return reply.status(202).send(accepted);
      },
    );
  }

  app.get(
    '/api/config/me/playback-routes',
    { config: { auth: { gateway: ACCOUNT } }, schema: { response: { 200: playbackRoutesResponseSchema } } },
    async (request) => {
      if (!request.identity) throw unauthorized('sign-in required');
      return nodes.playbackRoutes(request.identity, forwardedEntranceHost(request));
    },
  );

  // A play-agent without public_base_url looks its public address up here (service token).
  app.get(
    '/api/config/internal/nodes/:nodeId/public-address',
    {
      config: { auth: { service: true } },
      schema: { params: nodeParamsSchema, response: { 200: nodePublicAddressResponseSchema } },
    },
    async (request) => nodes.publicAddress(request.params.nodeId),
  );
}
