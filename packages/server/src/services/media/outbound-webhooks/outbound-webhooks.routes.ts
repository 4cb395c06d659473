import { z } from 'zod';
import {
  createOutboundWebhookRequestSchema,
  listOutboundWebhooksResponseSchema,
  outboundWebhookDeliveriesQuerySchema,
  outboundWebhookDeliveriesResponseSchema,
  outboundWebhookIdParamsSchema,
  outboundWebhookLibrariesResponseSchema,
  outboundWebhookSchema,
  outboundWebhookTestResponseSchema,
  updateOutboundWebhookRequestSchema,
} from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { OutboundWebhooksService } from './outbound-webhooks.service.js';

/** Outbound webhook endpoints, their deliveries and test sends (console permission `settings`). */
export function registerOutboundWebhookRoutes(
  app: AppServer,
  webhooks: OutboundWebhooksService,
  audit: AuditClient,
): void {
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } } as const;
  const params = outboundWebhookIdParamsSchema;
  const target = (id: string) => ({ type: 'webhook', id });
  /** An endpoint as answered (secrets masked), for the audit log's before. */
  const endpoint = async (id: string) =>
    (await webhooks.list()).endpoints.find((found) => found.id === id.toLowerCase()) ?? null;

  app.get(
    '/api/media/outbound-webhooks',
    { config, schema: { response: { 200: listOutboundWebhooksResponseSchema } } },
    async () => webhooks.list(),
  );
  app.post(
    '/api/media/outbound-webhooks',
    {
      config,
      schema: { body: createOutboundWebhookRequestSchema, response: { 201: outboundWebhookSchema } },
    },
    async (request, reply) => {
      const after = await webhooks.create(identityOf(request), request.body);
      await audit.record(request, {
        action: 'webhook.create',
        target: target(after.id),
        before: null,
        after,
      });
      return reply.status(201).send(after);
    },
  );
  app.get(
    '/api/media/outbound-webhooks/libraries',
    { config, schema: { response: { 200: outboundWebhookLibrariesResponseSchema } } },
    async () => webhooks.subscribableLibraries(),
  );
  app.get(
    '/api/media/outbound-webhooks/deliveries',
    {
      config,
      schema: {
        querystring: outboundWebhookDeliveriesQuerySchema,
        response: { 200: outboundWebhookDeliveriesResponseSchema },
      },
    },
    async (request) => webhooks.deliveries(request.query),
  );
  app.put(
    '/api/media/outbound-webhooks/:id',
    {
      config,
      schema: { params, body: updateOutboundWebhookRequestSchema, response: { 200: outboundWebhookSchema } },
    },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'webhook.update', target: target(request.params.id) },
        () => endpoint(request.params.id),
        () => webhooks.update(identityOf(request), request.params.id, request.body),
      ),
  );
  app.delete(
    '/api/media/outbound-webhooks/:id',
    { config, schema: { params, response: { 204: z.null() } } },
    async (request, reply) => {
      const before = await endpoint(request.params.id);
      await webhooks.delete(request.params.id);
      await audit.record(request, {
        action: 'webhook.delete',
        target: target(request.params.id),
        before,
        after: null,
      });
      return reply.status(204).send(null);
    },
  );
  app.post(
    '/api/media/outbound-webhooks/:id/test',
    { config, schema: { params, response: { 200: outboundWebhookTestResponseSchema } } },
    async (request, reply) => {
      const sent = await webhooks.test(identityOf(request), request.params.id);
      await audit.record(request, {
        action: 'webhook.test',
        target: target(request.params.id),
        details: { ok: sent.ok, httpStatus: sent.httpStatus, error: sent.error },
      });
      return reply.header('cache-control', 'no-store').send(sent);
    },
  );
}
