import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../../platform/cache/index.js';
import type { Logger } from '../../../../platform/logger.js';
import { toEventPayload, type MediaEventsRepository } from '../../events/media-events.repository.js';
import type {
  DeliveryRow,
  EndpointRow,
  NewDelivery,
  OutboundWebhooksRepository,
} from './outbound-webhooks.repository.js';
import { buildRequest } from './request-builder.js';
import { InvalidTargetError, type SafeHttpClient, type SafeHttpOutcome } from './safe-http-client.js';

/** Waits after failed attempts 1…5: 30 s, 2 min, 8 min, 32 min, 1 h (×4, capped at 1 h); 6 attempts in all. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 480_000, 1_920_000, 3_600_000];
/** The longest wait a Retry-After header may ask for. */
const MAX_RETRY_AFTER_MS = 3_600_000;
const EVENT_BATCH = 200;
/** Finished deliveries are kept this long. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;
const INSERT_CHUNK = 500;

export interface DeliveryWorkerOptions {
  /** Waits between attempts; maxAttempts = length + 1. */
  retryDelaysMs?: readonly number[];
  /** Deliveries attempted at once. Default 4. */
  concurrency?: number;
  /** Deliveries taken per round. Default 50. */
  batchSize?: number;
}

/** What one attempt (or a test send) leads to. */
export interface AttemptResult {
  outcome: SafeHttpOutcome;
  succeeded: boolean;
  /** No later attempt can help: the guard refused the target, the request cannot be built, or a 4xx. */
  permanent: boolean;
  lastError: string | null;
}

export function judge(outcome: SafeHttpOutcome): AttemptResult {
  const status = outcome.status;
  const succeeded = status !== null && status >= 200 && status < 300 && outcome.error === null;
  const clientError = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
  const lastError = succeeded
    ? null
    : [status !== null ? `HTTP ${status}` : null, outcome.error].filter(Boolean).join(': ') || 'failed';
  return { outcome, succeeded, permanent: !succeeded && (outcome.refused || clientError), lastError };
}

/**
 * The `outbound-webhook.deliver` task: turns media events into deliveries (one per enabled endpoint that
 * subscribes to the event's library and was enabled when the event occurred), then makes the attempts that
 * are due. Runs under the task's cluster-wide lock, so one media instance delivers at a time.
 */
export class DeliveryWorker {
  readonly retryDelaysMs: readonly number[];
  private readonly concurrency: number;
  private readonly batchSize: number;

  constructor(
    private readonly deps: {
      repository: OutboundWebhooksRepository;
      events: Pick<MediaEventsRepository, 'listUndelivered' | 'markDelivered'>;
      client: SafeHttpClient;
      clock: Clock;
      logger: Logger;
    },
    options: DeliveryWorkerOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.concurrency = options.concurrency ?? 4;
    this.batchSize = options.batchSize ?? 50;
  }

  get maxAttempts(): number {
    return this.retryDelaysMs.length + 1;
  }

  /** The `outbound-webhook.cleanup` task: deletes the deliveries finished more than 30 days ago. */
  async prune(): Promise<void> {
    await this.deps.repository.pruneFinished(new Date(this.deps.clock.now() - DELIVERY_RETENTION_MS));
  }

  async run(signal: AbortSignal): Promise<void> {
    await this.dispatchEvents(signal);
    await this.attemptDue(signal);
  }

  /**
   * Fans new events out to the endpoints. Without any enabled endpoint the events are left alone (an
   * endpoint created later does not get them either: it only takes events from its creation on). An event is
   * marked delivered once its deliveries exist; the deliveries are unique per endpoint and event, so a run
   * cut short between the two steps adds nothing twice.
   */
  async dispatchEvents(signal: AbortSignal): Promise<number> {
    let created = 0;
    // A long backlog (the first endpoint after months of scans) is worked off over several runs.
    const deadline = Date.now() + 20_000;
    while (!signal.aborted && Date.now() < deadline) {
      const endpoints = await this.deps.repository.enabledEndpoints();
      if (endpoints.length === 0) return created;
      const events = await this.deps.events.listUndelivered(EVENT_BATCH);
      if (events.length === 0) return created;
      const now = new Date(this.deps.clock.now());
      const rows: NewDelivery[] = [];
      for (const event of events) {
        const payload = toEventPayload(event);
        for (const endpoint of endpoints) {
          if (event.occurred_at.getTime() < endpoint.deliver_since.getTime()) continue;
          if (endpoint.library_ids.length > 0 && !endpoint.library_ids.includes(event.library_id)) continue;
          rows.push({
            id: randomUUID(),
            endpoint_id: endpoint.id,
            endpoint_name: endpoint.name,
            event_id: event.id,
            event_type: event.type,
            payload: JSON.stringify(payload),
            status: 'PENDING',
            max_attempts: this.maxAttempts,
            next_attempt_at: now,
            created_at: now,
          });
        }
      }
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        await this.deps.repository.insertDeliveries(rows.slice(start, start + INSERT_CHUNK));
      }
      await this.deps.events.markDelivered(
        events.map((event) => event.id),
        now,
      );
      created += rows.length;
      if (events.length < EVENT_BATCH) return created;
    }
    return created;
  }

  /** Attempts every due delivery, a few at a time, until none is due (or the service stops). */
  async attemptDue(signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!signal.aborted && Date.now() < deadline) {
      const due = await this.deps.repository.dueDeliveries(new Date(this.deps.clock.now()), this.batchSize);
      if (due.length === 0) return;
      const endpoints = new Map(
        (await this.deps.repository.enabledEndpoints()).map((endpoint) => [endpoint.id, endpoint]),
      );
      let next = 0;
      const lane = async () => {
        while (next < due.length && !signal.aborted) {
          const delivery = due[next++]!;
          const endpoint = endpoints.get(delivery.endpoint_id ?? '');
          if (endpoint) await this.attempt(delivery, endpoint, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, due.length) }, lane));
      if (due.length < this.batchSize) return;
    }
  }

  /** Sends one delivery once. */
  async send(endpoint: EndpointRow, delivery: Pick<DeliveryRow, 'id' | 'payload'>, signal?: AbortSignal) {
    let outcome: SafeHttpOutcome;
    try {
      const request = buildRequest(endpoint, delivery.payload, delivery.id);
      outcome = await this.deps.client.send({ ...request, signal });
    } catch (error) {
      const message =
        error instanceof InvalidTargetError ? error.message : `cannot build the request: ${String(error)}`;
      outcome = {
        status: null,
        retryAfterMs: null,
        excerpt: null,
        error: message,
        refused: true,
        durationMs: 0,
        redirects: 0,
      };
    }
    return judge(outcome);
  }

  private async attempt(delivery: DeliveryRow, endpoint: EndpointRow, signal: AbortSignal): Promise<void> {
    const result = await this.send(endpoint, delivery, signal);
    // Stopping mid-attempt: the delivery stays due and is attempted again at the next start.
    if (signal.aborted && !result.succeeded) return;
    const now = this.deps.clock.now();
    const attempts = delivery.attempts + 1;
    const last = attempts >= delivery.max_attempts;
    const status = result.succeeded ? 'SUCCEEDED' : result.permanent || last ? 'DEAD' : 'RETRYING';
    let nextAttemptAt: Date | null = null;
    if (status === 'RETRYING') {
      const delay = this.retryDelaysMs[Math.min(attempts - 1, this.retryDelaysMs.length - 1)] ?? 0;
      const asked = Math.min(result.outcome.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
      nextAttemptAt = new Date(now + Math.max(delay, asked));
    }
    await this.deps.repository.recordAttempt(delivery.id, {
      status,
      attempts,
      next_attempt_at: nextAttemptAt,
      last_http_status: result.outcome.status,
      last_error: result.lastError,
      response_excerpt: result.outcome.excerpt,
      last_attempt_at: new Date(now),
      delivered_at: result.succeeded ? new Date(now) : null,
    });
    if (status === 'DEAD') {
      this.deps.logger.warn(
        { endpointId: endpoint.id, deliveryId: delivery.id, attempts, error: result.lastError },
        'outbound webhook delivery is dead',
      );
    }
  }
}
