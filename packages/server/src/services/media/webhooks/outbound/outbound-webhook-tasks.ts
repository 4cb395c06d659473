import type { TaskScheduler } from '../../../../platform/tasks/index.js';
import type { DeliveryWorker, DeliveryWorkerOptions } from './delivery-worker.js';
import type { SafeHttpClientOptions } from './safe-http-client.js';

export const DELIVER_TASK = 'outbound-webhook.deliver';
export const CLEANUP_TASK = 'outbound-webhook.cleanup';

/** Tuning of the outbound webhooks (tests shorten the waits and inject a resolver). */
export interface OutboundWebhookOptions extends DeliveryWorkerOptions {
  /** How often the delivery task runs. Default 5 s. */
  intervalMs?: number;
  /** The HTTP client's timeout, redirect limit, resolver and address check. */
  http?: SafeHttpClientOptions;
}

/**
 * The outbound webhooks' scheduled tasks: `outbound-webhook.deliver` (exclusive: one media instance
 * delivers at a time) and `outbound-webhook.cleanup` (hourly: finished deliveries older than 30 days).
 */
export function registerOutboundWebhookTasks(
  scheduler: TaskScheduler,
  worker: DeliveryWorker,
  options: OutboundWebhookOptions = {},
): void {
  scheduler.register({
    name: DELIVER_TASK,
    schedule: { everyMs: options.intervalMs ?? 5_000 },
    run: (signal) => worker.run(signal),
  });
  scheduler.register({
    name: CLEANUP_TASK,
    schedule: { everyMs: 3_600_000 },
    run: () => worker.prune(),
  });
}
