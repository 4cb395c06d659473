import type { JsonObject } from './openapi-model.js';

/** A small document in the shape the console entrance serves (tests of the reference page). */
export const openapiFixture: JsonObject = {
  openapi: '3.1.0',
  info: { title: 'Media service', version: '1' },
  tags: [{ name: 'Nodes', description: 'Storage and playback nodes' }, { name: 'Deployment' }],
  paths: {
    '/api/config/nodes/{nodeId}': {
      parameters: [
        { name: 'nodeId', in: 'path', required: true, schema: { type: 'string', maxLength: 100 } },
      ],
      patch: {
        operationId: 'config.updateNode',
        summary: 'Change a node',
        tags: ['Nodes'],
        security: [{ accessToken: [], adminToken: [] }],
        'x-svc-permissions': ['node'],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/UpdateNode' } } },
        },
        responses: {
          '200': {
            description: 'The node',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
          },
          '404': { description: 'No such node', 'x-svc-error-codes': ['NODE_NOT_FOUND'] },
          '409': {
            description: 'Refused',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    error: {
                      type: 'object',
                      properties: {
                        code: { type: 'string', enum: ['NODE_NAME_TAKEN'] },
                        message: { type: 'string' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      delete: {
        operationId: 'config.deleteNode',
        summary: 'Remove a node',
        tags: ['Nodes'],
        security: [{ accessToken: [], adminToken: [] }],
        'x-svc-permissions': ['node'],
        parameters: [
          {
            name: 'sendUninstall',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: ['true', 'false'] },
          },
        ],
        responses: { '204': { description: 'Removed' } },
      },
    },
    '/api/config/deployment/capabilities': {
      get: {
        operationId: 'config.getCapabilities',
        summary: 'Edition, form and capabilities of this install',
        tags: ['Deployment'],
        security: [],
        responses: {
          '200': {
            description: 'The capabilities',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['edition'],
                  properties: {
                    edition: {
                      type: 'string',
                      enum: ['COMMUNITY', 'PRO'],
                      description: 'The licensed edition',
                    },
                    limits: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      UpdateNode: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: 'Shown in the console' },
          addresses: { type: 'array', items: { $ref: '#/components/schemas/Address' } },
          parent: { $ref: '#/components/schemas/UpdateNode' },
        },
      },
      Address: {
        type: 'object',
        required: ['protocol', 'host'],
        properties: { protocol: { type: 'string', enum: ['http', 'https'] }, host: { type: 'string' } },
      },
      Node: {
        type: 'object',
        required: ['nodeId'],
        properties: { nodeId: { type: 'string' }, disabled: { type: ['boolean', 'null'] } },
      },
    },
  },
};
