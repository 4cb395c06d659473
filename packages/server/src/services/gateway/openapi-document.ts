import { z } from 'zod';
import { errorBodySchema, type EndpointDeclaration, type GatewayRule, type Permission } from '@svc/contracts';

type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

/** JSON Schema 2020-12 (the dialect of OpenAPI 3.1) of what a caller sends or receives. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  delete converted.$schema;
  return converted;
}

/** The fields of an object schema as parameters (path parameters are always required). */
function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): Parameter[] {
  if (!schema) return [];
  const converted = jsonSchema(schema, 'input');
  const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((converted.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      schema: rest,
      ...(typeof description === 'string' ? { description } : {}),
    };
  });
}

const SECURITY_BY_KIND: Record<GatewayRule['kind'], Record<string, string[]>[]> = {
  public: [],
  admin: [{ adminToken: [] }],
  access: [{ accessToken: [] }],
  account: [{ adminToken: [] }, { accessToken: [] }],
  'node-token': [],
  'webhook-token': [],
};

const RULE_NOTES: Record<GatewayRule['kind'], string> = {
  public: 'Open before sign-in.',
  admin: 'Console: X-Admin-Token of an account holding one of the listed permissions.',
  access: 'Portal and clients: Authorization: Bearer <access token>.',
  account: 'Either token of a signed-in account.',
  'node-token': 'The node token in the path is the credential.',
  'webhook-token': 'The webhook token is the credential.',
};

function permissionsOf(rule: GatewayRule): readonly Permission[] | 'any' | undefined {
  return rule.kind === 'admin' ? rule.anyOf : undefined;
}

function successResponse(endpoint: EndpointDeclaration): Record<string, unknown> {
  const status = String(endpoint.status ?? 200);
  if (status === '204') return { [status]: { description: 'Done; no body.' } };
  if (endpoint.response) {
    return {
      [status]: {
        description: 'Success.',
        content: { 'application/json': { schema: jsonSchema(endpoint.response, 'output') } },
      },
    };
  }
  if (endpoint.produces) {
    return { [status]: { description: 'Success.', content: { [endpoint.produces]: {} } } };
  }
  return { [status]: { description: 'Success.' } };
}

function requestBody(endpoint: EndpointDeclaration): Record<string, unknown> | undefined {
  if (endpoint.consumes) return { required: true, content: { [endpoint.consumes]: {} } };
  if (!endpoint.body) return undefined;
  return {
    required: true,
    content: { 'application/json': { schema: jsonSchema(endpoint.body, 'input') } },
  };
}

function operationOf(endpoint: EndpointDeclaration, rule: GatewayRule): Record<string, unknown> {
  const permissions = permissionsOf(rule);
  const codes = ['VALIDATION_FAILED', ...endpoint.errors];
  const body = requestBody(endpoint);
  return {
    operationId: endpoint.id,
    summary: endpoint.summary,
    description: RULE_NOTES[rule.kind],
    tags: [endpoint.tag],
    security: SECURITY_BY_KIND[rule.kind],
    ...(permissions === undefined ? {} : { 'x-svc-permissions': permissions }),
    'x-svc-error-codes': codes,
    parameters: [...parametersOf(endpoint.params, 'path'), ...parametersOf(endpoint.query, 'query')],
    ...(body ? { requestBody: body } : {}),
    responses: {
      ...successResponse(endpoint),
      default: {
        description: `Error body; codes of this endpoint: ${codes.join(', ')}.`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the admin and portal API: every declared endpoint the gateway forwards
 * (docs/architecture.md "Endpoints"). Service-to-service, node-facing and player routes are not part of it.
 */
export function buildOpenApiDocument(
  declared: readonly EndpointDeclaration[],
  version: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const endpoint of declared) {
    if (!('gateway' in endpoint.auth)) continue;
    tags.add(endpoint.tag);
    const item = (paths[endpoint.path] ??= {});
    item[endpoint.method.toLowerCase()] = operationOf(endpoint, endpoint.auth.gateway);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Media service API',
      version,
      description:
        'The admin (console) and portal API, served through the console entrance. Errors share one body; clients translate them by code.',
    },
    servers: [{ url: '/' }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorBody: jsonSchema(errorBodySchema, 'output') },
      securitySchemes: {
        adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token' },
        accessToken: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}
