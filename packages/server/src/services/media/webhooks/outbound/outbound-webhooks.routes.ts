import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../../platform/http/create-server.js';
import { serve } from '../../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../../platform/http/route-auth.js';
import type { OutboundWebhooksService } from './outbound-webhooks.service.js';

/** Outbound webhook endpoints, their deliveries and test sends (console permission `settings`). */
export function registerOutboundWebhookRoutes(
  app: AppServer,
  webhooks: OutboundWebhooksService,
  audit: AuditClient,
): void {
  const target = (id: string) => ({ type: 'webhook', id });
  /** An endpoint as answered (secrets masked), for the audit log's before. */
  const endpoint = async (id: string) =>
    (await webhooks.list()).endpoints.find((found) => found.id === id.toLowerCase()) ?? null;

  serve(app, endpoints.media.listOutboundWebhooks, async () => webhooks.list());
  serve(app, endpoints.media.createOutboundWebhook, async (request) => {
    const after = await webhooks.create(identityOf(request), request.body);
    await audit.record(request, {
      action: 'webhook.create',
      target: target(after.id),
      before: null,
      after,
    });
    return after;
  });
  serve(app, endpoints.media.listOutboundWebhookLibraries, async () => webhooks.subscribableLibraries());
  serve(app, endpoints.media.listOutboundWebhookDeliveries, async (request) =>
    webhooks.deliveries(request.query),
  );
  serve(app, endpoints.media.updateOutboundWebhook, async (request) =>
    audit.recordChange(
      request,
      { action: 'webhook.update', target: target(request.params.id) },
      () => endpoint(request.params.id),
      () => webhooks.update(identityOf(request), request.params.id, request.body),
    ),
  );
  serve(app, endpoints.media.deleteOutboundWebhook, async (request, reply) => {
    const before = await endpoint(request.params.id);
    await webhooks.delete(request.params.id);
    await audit.record(request, {
      action: 'webhook.delete',
      target: target(request.params.id),
      before,
      after: null,
    });
    return reply.send();
  });
  serve(app, endpoints.media.testOutboundWebhook, async (request, reply) => {
    const sent = await webhooks.test(identityOf(request), request.params.id);
    await audit.record(request, {
      action: 'webhook.test',
      target: target(request.params.id),
      details: { ok: sent.ok, httpStatus: sent.httpStatus, error: sent.error },
    });
    return reply.header('cache-control', 'no-store').send(sent);
  });
}
