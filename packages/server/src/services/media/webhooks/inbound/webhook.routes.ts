import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../../platform/http/create-server.js';
import { serve } from '../../../../platform/http/endpoint-route.js';
import { webhookInput, type WebhookService } from './webhook.service.js';

/** The inbound webhook (checks its own token) and its token management (console permission `settings`). */
export function registerWebhookRoutes(app: AppServer, webhook: WebhookService, audit: AuditClient): void {
  serve(app, endpoints.media.getWebhookToken, async () => webhook.status());
  serve(app, endpoints.media.regenerateWebhookToken, async (request, reply) => {
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
  });

  serve(app, endpoints.media.receiveWebhook, async (request) =>
    webhook.receive(request.params.token, webhookInput(request.body, request.query)),
  );
  serve(app, endpoints.media.receiveWebhookByGet, async (request) =>
    webhook.receive(request.params.token, webhookInput(undefined, request.query)),
  );
}
