import {
  createNodeRequestSchema,
  createNodeResponseSchema,
  deleteNodeQuerySchema,
  deleteNodeResponseSchema,
  listNodesResponseSchema,
  nodeCredentialsSchema,
  nodeLifecycleResponseSchema,
  nodeParamsSchema,
  nodeViewSchema,
  playbackRoutesResponseSchema,
  regenerateEndpointTokenResponseSchema,
  updateNodeRequestSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { unauthorized } from '../../platform/http/errors.js';
import { identityOf, type GatewayRule } from '../../platform/http/route-auth.js';
import type { NodeManagementService } from './node-management.service.js';

const NODE_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['node'] };
/** A signed-in account with either token (portal access token, or a console admin token). */
const ACCOUNT: GatewayRule = { kind: 'account' };

/** Node management (console) and the playback routes of the signed-in account. See docs/nodes.md. */
export function registerNodeManagementRoutes(app: AppServer, nodes: NodeManagementService): void {
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
    async (request) => nodes.update(request.params.nodeId, request.body, identityOf(request)),
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
    async (request) => nodes.remove(request.params.nodeId, request.query.sendUninstall, request.identity),
  );
  // "Show full command": the only answer with the tokens in full (besides the creation's).
  app.get(
    '/api/config/nodes/:nodeId/credentials',
    { config: auth, schema: { params: nodeParamsSchema, response: { 200: nodeCredentialsSchema } } },
    async (request, reply) => {
      const credentials = await nodes.credentials(request.params.nodeId);
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
      async (request, reply) => reply.status(202).send(await nodes.lifecycle(request.params.nodeId, action)),
    );
  }

  app.get(
    '/api/config/me/playback-routes',
    { config: { auth: { gateway: ACCOUNT } }, schema: { response: { 200: playbackRoutesResponseSchema } } },
    async (request) => {
      if (!request.identity) throw unauthorized('sign-in required');
      return nodes.playbackRoutes(request.identity);
    },
  );
}
