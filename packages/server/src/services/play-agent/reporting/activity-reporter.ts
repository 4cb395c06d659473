import type { ActivityEvent } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import type { UserClient } from '../upstream/user-client.js';

/** Largest batch the user service takes in one call. */
const BATCH = 500;
/** Events kept while the user service cannot be reached; beyond it the oldest are dropped (logged). */
const MAX_QUEUED = 100_000;

/**
 * Writes playback events to the activity log in batches, in the background: a report call of a player
 * only queues its event, so logging never stalls a stream or a report. Failed batches are retried (the
 * events carry ids, so a batch that did arrive is not stored twice); close() sends what is queued and hands
 * back what it could not, for the caller to keep on disk (report-spool.ts).
 */
export class ActivityReporter {
  private queue: ActivityEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failures = 0;
  private dropped = 0;

  constructor(
    private readonly deps: {
      users: Pick<UserClient, 'recordActivity'>;
      logger: Logger;
      flushMs?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.deps.flushMs ?? 1_000);
    this.timer.unref();
  }

  record(event: ActivityEvent): void {
    this.queue.push(event);
    if (this.queue.length > MAX_QUEUED) {
      const excess = this.queue.length - MAX_QUEUED;
      this.queue.splice(0, excess);
      this.dropped += excess;
      this.deps.logger.error(
        { dropped: this.dropped },
        'activity log unreachable for long: oldest events dropped',
      );
    }
    if (this.queue.length >= BATCH) void this.flush();
  }

  /** Events kept from an earlier run go first, ahead of anything recorded since. */
  requeue(events: readonly ActivityEvent[]): void {
    this.queue = [...events, ...this.queue];
    if (this.queue.length > 0) void this.flush();
  }

  get queued(): number {
    return this.queue.length;
  }

  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Sends everything queued, trying for at most deadlineMs; answers the events still unsent. */
  async close(deadlineMs = 5_000): Promise<ActivityEvent[]> {
    if (this.timer) clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while (this.queue.length > 0 && Date.now() < until) {
      await this.flush();
      if (this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await this.flushing;
    return [...this.queue];
  }

  private async flushOnce(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH);
      try {
        await this.deps.users.recordActivity(batch);
      } catch (error) {
        this.failures += 1;
        if (this.failures === 1 || this.failures % 30 === 0) {
          this.deps.logger.warn(
            { err: (error as Error).message, queued: this.queue.length },
            'activity log not written yet; retrying',
          );
        }
        return;
      }
      this.failures = 0;
      // By identity, not by count: record() may have dropped the oldest events while this batch was out.
      const sent = new Set(batch);
      this.queue = this.queue.filter((event) => !sent.has(event));
    }
  }
}
