import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { ScanRow, ScansRepository } from './scans.repository.js';
import { ScanAborted } from './scan-state.js';

export interface ScanRunnerOptions {
  scans: ScansRepository;
  /** Runs one claimed scan to its end (it records its own outcome). */
  execute: (scan: ScanRow, signal: AbortSignal) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** Scans this instance runs at once (different libraries). Default 2. */
  maxParallel?: number;
  /** How often running scans prove they are alive. Default 15 s. */
  heartbeatMs?: number;
  /** A running scan without a heartbeat for this long belongs to a dead instance. Default 2 min. */
  staleAfterMs?: number;
}

/**
 * Runs queued scans in the background of this instance: claims them from the database queue (so several
 * media instances share the work, one scan per library at a time), never on a request's path.
 */
export class ScanRunner {
  private readonly running = new Map<
    string,
    { libraryId: string; controller: AbortController; done: Promise<void> }
  >();
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: ScanRunnerOptions) {}

  start(): void {
    this.heartbeat = setInterval(() => {
      void this.options.scans
        .heartbeat([...this.running.keys()], new Date(this.options.clock.now()))
        .catch((error: unknown) =>
          this.options.logger.warn({ err: (error as Error).message }, 'scan heartbeat failed'),
        );
    }, this.options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
    this.kick();
  }

  /** Looks for queued scans now (after queueing one, and periodically). */
  kick(): void {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // A kick that came after the last look must not wait for the next sweep.
      if (this.drainAgain && !this.stopped) this.kick();
    });
  }

  /** Ids of the scans running in this instance. */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** Fails scans whose instance died (no heartbeat), then looks for queued work. */
  async sweep(): Promise<void> {
    const now = this.options.clock.now();
    const failed = await this.options.scans.failStale(
      new Date(now - (this.options.staleAfterMs ?? 120_000)),
      new Date(now),
      this.runningIds(),
    );
    if (failed.length > 0)
      this.options.logger.warn({ scans: failed }, 'scans of a stopped instance marked failed');
    this.kick();
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.drainAgain = false;
        while (!this.stopped && this.running.size < (this.options.maxParallel ?? 2)) {
          const busy = new Set([...this.running.values()].map((entry) => entry.libraryId));
          const scan = await this.options.scans.claimNext(new Date(this.options.clock.now()), busy);
          if (!scan) break;
          if (this.stopped) {
            await this.options.scans.requeue(scan.id);
            break;
          }
          this.launch(scan);
        }
      } while (this.drainAgain && !this.stopped);
    } catch (error) {
      this.options.logger.error({ err: (error as Error).message }, 'cannot claim queued scans');
    }
  }

  private launch(scan: ScanRow): void {
    const controller = new AbortController();
    const done = this.options
      .execute(scan, controller.signal)
      .catch(async (error: unknown) => {
        if (error instanceof ScanAborted || controller.signal.aborted) {
          await this.options.scans.requeue(scan.id);
          return;
        }
        this.options.logger.error({ scanId: scan.id, err: (error as Error).message }, 'library scan failed');
        await this.options.scans.finish(
          scan.id,
          'failed',
          (error as Error).message.slice(0, 2000),
          new Date(this.options.clock.now()),
        );
      })
      .catch((error: unknown) =>
        this.options.logger.error(
          { scanId: scan.id, err: (error as Error).message },
          'cannot record scan outcome',
        ),
      )
      .finally(() => {
        this.running.delete(scan.id);
        if (!this.stopped) this.kick();
      });
    this.running.set(scan.id, { libraryId: scan.library_id, controller, done });
  }

  /** Stops claiming, interrupts running scans (they go back to the queue) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.draining;
    const entries = [...this.running.values()];
    for (const entry of entries) entry.controller.abort();
    await Promise.all(entries.map((entry) => entry.done));
  }
}
