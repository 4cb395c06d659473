import type { Kysely } from 'kysely';
import type { Clock } from '../../../../platform/cache/index.js';
import type { AppServer } from '../../../../platform/http/create-server.js';
import type { Logger } from '../../../../platform/logger.js';
import type { TaskScheduler } from '../../../../platform/tasks/index.js';
import type { LibrariesRepository } from '../../libraries/libraries.repository.js';
import type { MediaDatabase } from '../../media.db.js';
import type { MediaEventsRepository } from '../../events/media-events.repository.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from './delivery-worker.js';
import { OutboundWebhooksRepository } from './outbound-webhooks.repository.js';
import type { AuditClient } from '../../../../platform/audit/audit-client.js';
import { registerOutboundWebhookRoutes } from './outbound-webhooks.routes.js';
import { OutboundWebhooksService } from './outbound-webhooks.service.js';
import { SafeHttpClient, type SafeHttpClientOptions } from './safe-http-client.js';

export const DELIVER_TASK = 'outbound-webhook.deliver';
export const CLEANUP_TASK = 'outbound-webhook.cleanup';
/** Finished deliveries are kept this long. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;

/** Tuning of the outbound webhooks (tests shorten the waits and inject a resolver). */
export interface OutboundWebhookOptions extends DeliveryWorkerOptions {
  /** How often the delivery task runs. Default 5 s. */
  intervalMs?: number;
  /** The HTTP client's timeout, redirect limit, resolver and address check. */
  http?: SafeHttpClientOptions;
}

/**
 * Wires the outbound webhooks into the media service: routes, and the scheduled tasks
 * `outbound-webhook.deliver` (exclusive: one media instance delivers at a time) and
 * `outbound-webhook.cleanup` (hourly: finished deliveries older than 30 days).
 */
export function setupOutboundWebhooks(parts: {
  app: AppServer;
  scheduler: TaskScheduler;
  db: Kysely<MediaDatabase>;
  libraries: LibrariesRepository;
  events: MediaEventsRepository;
  clock: Clock;
  logger: Logger;
  audit: AuditClient;
  options?: OutboundWebhookOptions;
}): { close(): Promise<void> } {
  const { app, scheduler, clock, logger, options = {} } = parts;
  const repository = new OutboundWebhooksRepository(parts.db);
  const client = new SafeHttpClient(options.http);
  const worker = new DeliveryWorker(
    { repository, events: parts.events, client, clock, logger: logger.child({ part: 'outbound-webhooks' }) },
    options,
  );
  registerOutboundWebhookRoutes(
    app,
    new OutboundWebhooksService(repository, parts.libraries, worker, clock),
    parts.audit,
  );

  scheduler.register({
    name: DELIVER_TASK,
    schedule: { everyMs: options.intervalMs ?? 5_000 },
    run: (signal) => worker.run(signal),
  });
  scheduler.register({
    name: CLEANUP_TASK,
    schedule: { everyMs: 3_600_000 },
    run: async () => {
      await repository.pruneFinished(new Date(clock.now() - DELIVERY_RETENTION_MS));
    },
  });
  // Closed after the scheduler stopped (the component's stop), so no attempt meets a closed client.
  return { close: () => client.close() };
}
