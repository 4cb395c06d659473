import { z } from 'zod';
import { declareEndpoints } from '../endpoint.js';

/** Endpoints the gateway answers itself (docs/architecture.md "Endpoints"). */
export const gatewayEndpoints = declareEndpoints('gateway', {
  getOpenApiDocument: {
    method: 'GET',
    path: '/api/openapi.json',
    summary: 'The OpenAPI 3.1 document of the admin and portal API',
    tag: 'Reference',
    auth: { direct: 'entrance' },
    response: z.record(z.string(), z.unknown()),
    errors: [],
  },
  // MCP over streamable HTTP (docs/mcp.md): the gateway authenticates the access token itself and answers
  // 404 while the MCP switch is off; the JSON-RPC messages are the MCP SDK's, not ours to schema.
  postMcp: {
    method: 'POST',
    path: '/mcp',
    summary: 'MCP JSON-RPC request of a signed-in client',
    tag: 'MCP',
    auth: { direct: 'entrance' },
    consumes: 'application/json',
    produces: 'application/json',
    errors: ['NOT_FOUND', 'UNAUTHORIZED'],
  },
  getMcp: {
    method: 'GET',
    path: '/mcp',
    summary: 'MCP event stream (answered by the MCP transport, stateless)',
    tag: 'MCP',
    auth: { direct: 'entrance' },
    produces: 'text/event-stream',
    errors: ['NOT_FOUND', 'UNAUTHORIZED'],
  },
  deleteMcp: {
    method: 'DELETE',
    path: '/mcp',
    summary: 'MCP session end (answered by the MCP transport, stateless)',
    tag: 'MCP',
    auth: { direct: 'entrance' },
    errors: ['NOT_FOUND', 'UNAUTHORIZED'],
  },
});
