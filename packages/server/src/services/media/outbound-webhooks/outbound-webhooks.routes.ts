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
import type { AppServer } from '../../../platform/http/create-server.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { OutboundWebhooksService } from './outbound-webhooks.service.js';

/** Outbound webhook endpoints, their deliveries and test sends (console permission `settings`). */
export function registerOutboundWebhookRoutes(app: AppServer, webhooks: OutboundWebhooksService): void {
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } } as const;
  const params = outboundWebhookIdParamsSchema;

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
    async (request, reply) =>
      reply.status(201).send(await webhooks.create(identityOf(request), request.body)),
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
    async (request) => webhooks.update(identityOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/media/outbound-webhooks/:id',
    { config, schema: { params, response: { 204: z.null() } } },
    async (request, reply) => {
      await webhooks.delete(request.params.id);
      return reply.status(204).send(null);
    },
  );
  app.post(
    '/api/media/outbound-webhooks/:id/test',
    { config, schema: { params, response: { 200: outboundWebhookTestResponseSchema } } },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send(await webhooks.test(identityOf(request), request.params.id)),
  );
}
