import type { ProbeToolStatus } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import { zeroScanCounters, type ScanRow, type ScansRepository } from './scans.repository.js';

/** A scan stopped because its instance is shutting down; it goes back to the queue. */
export class ScanAborted extends Error {}

/**
 * What one run of a scan keeps while it works and reports as its progress: the counters, the problems met,
 * the probe tools of the nodes; and what its parts share: the abort signal, the clock and the logger.
 */
export class ScanState {
  readonly counters = zeroScanCounters();
  readonly problems: string[] = [];
  /** A source could not be scanned (walk failed, or it looked unmounted). */
  sourceFailed = false;
  probeTools: ProbeToolStatus[] = [];
  private lastProgressAt = 0;

  constructor(
    private readonly deps: { scans: Pick<ScansRepository, 'progress'>; clock: Clock; logger: Logger },
    readonly scan: ScanRow,
    readonly signal: AbortSignal,
  ) {}

  get logger(): Logger {
    return this.deps.logger;
  }

  now(): Date {
    return new Date(this.deps.clock.now());
  }

  checkAbort(): void {
    if (this.signal.aborted) throw new ScanAborted('scan interrupted by shutdown');
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  /** Counts a file as looked at once it is prepared, and reports progress now and then. */
  async seen<T>(preparing: Promise<T>): Promise<T> {
    const result = await preparing;
    this.counters.files_seen += 1;
    await this.progress();
    return result;
  }

  /** Stores the progress: at most every 250 ms, unless forced or entering a phase. */
  async progress(force = false, phase?: ScanRow['phase']): Promise<void> {
    const at = this.deps.clock.now();
    if (!force && phase === undefined && at - this.lastProgressAt < 250) return;
    this.lastProgressAt = at;
    await this.deps.scans.progress(
      this.scan.id,
      { ...this.counters, ...(phase ? { phase } : {}), probe_tools: JSON.stringify(this.probeTools) },
      new Date(at),
    );
  }
}
