import { z } from 'zod';
import {
  inboundWebhookResponseSchema,
  webhookTokenRegeneratedSchema,
  webhookTokenStatusSchema,
} from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import { webhookInput, type WebhookService } from './webhook.service.js';

/** The inbound webhook (checks its own token) and its token management (console permission `settings`). */
export function registerWebhookRoutes(app: AppServer, webhook: WebhookService, audit: AuditClient): void {
  const settings = { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } } as const;
  const inbound = { auth: { gateway: { kind: 'webhook-token' } } } as const;
  const params = z.object({ token: z.string() });

  app.get(
    '/api/media/webhook/token',
    { config: settings, schema: { response: { 200: webhookTokenStatusSchema } } },
    async () => webhook.status(),
  );
  app.post(
    '/api/media/webhook/token/regenerate',
    { config: settings, schema: { response: { 200: webhookTokenRegeneratedSchema } } },
    async (request, reply) => {
      const before = await webhook.status();
      const after = await webhook.regenerate();
      // Only when the token was made and its masked form (never the token itself) enter the log.
      await audit.record(request, {
        action: 'settings.inbound-webhook-token',
        target: { type: 'setting', id: 'inbound-webhook-token' },
        before: { issuedAt: before.createdAt },
        after: { issuedAt: after.createdAt },
      });
      return reply.header('cache-control', 'no-store').send(after);
    },
  );

  const receive = { config: inbound, schema: { params, response: { 202: inboundWebhookResponseSchema } } };
  app.post('/api/webhook/:token', receive, async (request, reply) =>
    reply
      .status(202)
      .send(
        await webhook.receive(
          request.params.token,
          webhookInput(request.body, request.query as Record<string, unknown>),
        ),
      ),
  );
  app.get('/api/webhook/:token', receive, async (request, reply) =>
    reply
      .status(202)
      .send(
        await webhook.receive(
          request.params.token,
          webhookInput(undefined, request.query as Record<string, unknown>),
        ),
      ),
  );
}
