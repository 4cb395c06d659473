import { allEndpoints, endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import { SVC_VERSION } from '../../platform/version.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** Serves the OpenAPI document, built once on first request (the declarations do not change at run time). */
export function registerOpenApiRoute(app: AppServer): void {
  let document: Record<string, unknown> | undefined;
  serve(app, endpoints.gateway.getOpenApiDocument, async (_request, reply) => {
    document ??= buildOpenApiDocument(allEndpoints, SVC_VERSION);
    void reply.header('cache-control', 'no-cache');
    return document;
  });
}
