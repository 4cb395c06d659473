import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allEndpoints, declareEndpoints } from '@svc/contracts';
import { buildOpenApiDocument } from '../../../src/services/gateway/openapi-document.js';

type Operation = Record<string, unknown> & {
  operationId: string;
  parameters: { name: string; in: string; required: boolean }[];
  security: Record<string, string[]>[];
};

function operations(document: Record<string, unknown>): [string, string, Operation][] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, string, Operation] => [path, method, operation]),
  );
}

describe('OpenAPI document of the admin and portal API', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const document = buildOpenApiDocument(allEndpoints, '1.2.3');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('holds exactly the endpoints the gateway forwards, each once, with unique operation ids', () => {
    const document = buildOpenApiDocument(allEndpoints, '1.2.3');
    const forwarded = allEndpoints.filter((endpoint) => 'gateway' in endpoint.auth);
    const listed = operations(document);
    expect(listed.map(([, method, operation]) => `${method} ${operation.operationId}`).sort()).toEqual(
      forwarded.map((endpoint) => `${endpoint.method.toLowerCase()} ${endpoint.id}`).sort(),
    );
    expect(new Set(listed.map(([, , operation]) => operation.operationId)).size).toBe(listed.length);
  });

  it('describes parameters, bodies, permissions and error codes from the declaration', async () => {
    const sample = declareEndpoints('config', {
      renameNode: {
        method: 'PATCH',
        path: '/api/config/nodes/{nodeId}',
        summary: 'Rename a node',
        tag: 'Nodes',
        auth: { gateway: { kind: 'admin', anyOf: ['node'] } },
        params: z.object({ nodeId: z.string().max(64) }),
        query: z.object({ dryRun: z.coerce.boolean().optional(), reason: z.string() }),
        body: z.object({ name: z.string().min(1).describe('Shown in the console') }),
        response: z.object({ nodeId: z.string(), name: z.string() }),
        errors: ['NOT_FOUND', 'NODE_EMBEDDED'],
      },
      listMine: {
        method: 'GET',
        path: '/api/config/me/things',
        summary: 'Things of the signed-in account',
        tag: 'Me',
        auth: { gateway: { kind: 'account' } },
        response: z.object({ things: z.array(z.string()) }),
        errors: [],
      },
      internalOnly: {
        method: 'GET',
        path: '/api/config/internal/secret',
        summary: 'Not public',
        tag: 'Internal',
        auth: { service: true },
        errors: [],
      },
    });
    const document = buildOpenApiDocument(Object.values(sample), '0.0.1');
    expect((await new Validator().validate(document)).valid).toBe(true);
    const paths = document.paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths)).toEqual(['/api/config/nodes/{nodeId}', '/api/config/me/things']);
    const rename = paths['/api/config/nodes/{nodeId}']!.patch!;
    expect(rename.operationId).toBe('config.renameNode');
    expect(rename['x-svc-permissions']).toEqual(['node']);
    expect(rename['x-svc-error-codes']).toEqual(['VALIDATION_FAILED', 'NOT_FOUND', 'NODE_EMBEDDED']);
    expect(rename.security).toEqual([{ adminToken: [] }]);
    expect(rename.parameters).toEqual([
      { name: 'nodeId', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } },
      { name: 'dryRun', in: 'query', required: false, schema: expect.any(Object) as unknown },
      { name: 'reason', in: 'query', required: true, schema: { type: 'string' } },
    ]);
    expect(JSON.stringify(rename.requestBody)).toContain('Shown in the console');
    expect(paths['/api/config/me/things']!.get!.security).toEqual([{ adminToken: [] }, { accessToken: [] }]);
  });
});
