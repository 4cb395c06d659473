import type { Logger } from '../../../platform/logger.js';
import type { UserClient } from '../upstream/user-client.js';
import type { PendingUsage } from './report-spool.js';

/** The route bytes went through: the manual reverse-proxy address when the request named one, else this node. */
export interface ServedRoute {
  userId: string;
  endpointId: string | null;
}

const keyOf = (route: ServedRoute) => `${route.userId}\u0000${route.endpointId ?? ''}`;

/**
 * Counts bytes served per user and route and sends them to the user service's traffic counters in the
 * background (every flushMs). Bytes not yet confirmed are kept and count towards quota checks here, so a
 * quota cannot be overrun between two flushes.
 */
export class UsageMeter {
  private readonly pending = new Map<string, { route: ServedRoute; bytes: number }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      users: Pick<UserClient, 'recordUsage'>;
      nodeId: string;
      logger: Logger;
      /** Called after a user's bytes were recorded (their cached policy is stale). */
      onRecorded?: (userId: string) => void;
      flushMs?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.deps.flushMs ?? 2_000);
    this.timer.unref();
  }

  add(route: ServedRoute, bytes: number): void {
    if (bytes <= 0) return;
    const key = keyOf(route);
    const entry = this.pending.get(key);
    if (entry) entry.bytes += bytes;
    else this.pending.set(key, { route, bytes });
  }

  /** Bytes of the user not yet recorded: all routes (`total`), or one route. */
  unrecorded(userId: string, endpointId?: string | null): number {
    let sum = 0;
    for (const { route, bytes } of this.pending.values()) {
      if (route.userId !== userId) continue;
      if (endpointId === undefined || route.endpointId === endpointId) sum += bytes;
    }
    return sum;
  }

  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Sends what is pending; answers what could not be recorded (kept on disk by the caller). */
  async close(): Promise<PendingUsage[]> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    if (this.pending.size > 0) await this.flush();
    return [...this.pending.values()]
      .filter((entry) => entry.bytes > 0)
      .map(({ route, bytes }) => ({ route: { ...route }, bytes }));
  }

  /** Counts kept from an earlier run: added to what is pending and sent with the next flush. */
  restore(entries: readonly PendingUsage[]): void {
    for (const { route, bytes } of entries) this.add(route, bytes);
  }

  private async flushOnce(): Promise<void> {
    for (const [key, entry] of [...this.pending]) {
      const bytes = entry.bytes;
      if (bytes <= 0) continue;
      try {
        await this.deps.users.recordUsage({
          userId: entry.route.userId,
          nodeId: this.deps.nodeId,
          ...(entry.route.endpointId ? { endpointId: entry.route.endpointId } : {}),
          bytes,
        });
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status === 404) {
          this.pending.delete(key);
          continue;
        }
        this.deps.logger.warn({ err: (error as Error).message }, 'traffic not recorded yet; retrying');
        return;
      }
      const current = this.pending.get(key);
      if (current) {
        current.bytes -= bytes;
        if (current.bytes <= 0) this.pending.delete(key);
      }
      this.deps.onRecorded?.(entry.route.userId);
    }
  }
}
