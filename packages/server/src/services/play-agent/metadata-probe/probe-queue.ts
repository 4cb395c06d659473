import { LRUCache } from 'lru-cache';
import {
  METADATA_PROBE_QUEUE_LIMIT,
  type MediaInfo,
  type MetadataProbeConfig,
  type PlaybackFile,
} from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';

/** A played file without technical metadata. */
export interface ProbeJob {
  itemId: string;
  file: PlaybackFile;
}

export interface ProbeQueueStats {
  /** Waiting for their start delay or for a free slot (at most METADATA_PROBE_QUEUE_LIMIT). */
  queued: number;
  running: number;
  /** Turned away because the queue was full. */
  dropped: number;
  stored: number;
  failed: number;
  /** Files in their failure cooldown. */
  coolingDown: number;
}

const MiB = 1024 * 1024;

/** Metadata with at least one stream counts; an empty result of an old scan is completed too. */
export const hasMetadata = (file: PlaybackFile): boolean =>
  file.mediaInfo !== null && file.mediaInfo.streams.length > 0;
const HOUR_MS = 60 * 60 * 1000;
/** A file probed here is not probed again while players still hold its old item (no metadata). */
const DONE_MEMORY_MS = 30 * 60 * 1000;

/**
 * Asynchronous technical-metadata completion during playback (docs/image-cache.md): a played file without
 * metadata is probed in the background after the start delay, at most `maxConcurrency` at a time, each
 * probe reading at most the traffic cap; a failure rests the file for the cooldown; at most
 * METADATA_PROBE_QUEUE_LIMIT files wait, further ones are dropped and counted. `played()` returns at once
 * and never fails, so the playback that triggered it is never held up.
 */
export class ProbeQueue {
  private config: MetadataProbeConfig;
  private readonly delayed = new Map<string, { job: ProbeJob; timer: NodeJS.Timeout }>();
  private waiting: ProbeJob[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();
  private readonly done = new LRUCache<string, true>({ max: 10_000, ttl: DONE_MEMORY_MS });
  private dropped = 0;
  private stored = 0;
  private failed = 0;
  private stopped = false;

  constructor(
    config: MetadataProbeConfig,
    private readonly deps: {
      /** Reads the file through a byte budget of `capBytes` and answers its metadata. */
      probe: (job: ProbeJob, capBytes: number) => Promise<MediaInfo>;
      /** Writes the result back to the media service. */
      store: (job: ProbeJob, mediaInfo: MediaInfo) => Promise<void>;
      /** The startup probe found a working probe tool. */
      toolUsable: () => boolean;
      logger: Logger;
      now?: () => number;
    },
  ) {
    this.config = config;
  }

  apply(config: MetadataProbeConfig): void {
    this.config = config;
    if (!config.enabled) this.forgetQueued();
    this.pump();
  }

  /** Forgets what waits and the cooldowns (running probes finish). */
  clearAll(): void {
    this.forgetQueued();
    this.failedAt.clear();
    this.done.clear();
  }

  stats(): ProbeQueueStats {
    const now = this.now();
    const cooldownMs = this.config.failureCooldownHours * HOUR_MS;
    return {
      queued: this.delayed.size + this.waiting.length,
      running: this.running.size,
      dropped: this.dropped,
      stored: this.stored,
      failed: this.failed,
      coolingDown: [...this.failedAt.values()].filter((at) => at + cooldownMs > now).length,
    };
  }

  /** A player started reading a file: queue a probe when it has no metadata and none is due already. */
  played(job: ProbeJob): void {
    if (this.stopped || hasMetadata(job.file) || job.file.size === null) return;
    if (!this.config.enabled || !this.deps.toolUsable()) return;
    const key = this.key(job);
    if (this.delayed.has(key) || this.running.has(key) || this.done.has(key)) return;
    if (this.waiting.some((waiting) => this.key(waiting) === key)) return;
    const failedAt = this.failedAt.get(key);
    if (failedAt !== undefined) {
      if (failedAt + this.config.failureCooldownHours * HOUR_MS > this.now()) return;
      this.failedAt.delete(key);
    }
    if (this.delayed.size + this.waiting.length >= METADATA_PROBE_QUEUE_LIMIT) {
      this.dropped += 1;
      return;
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.waiting.push(job);
      this.pump();
    }, this.config.startDelaySeconds * 1000);
    timer.unref();
    this.delayed.set(key, { job, timer });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.forgetQueued();
    await Promise.allSettled(this.running.values());
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.config.maxConcurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const key = this.key(job);
      const run = this.run(job).finally(() => {
        this.running.delete(key);
        this.pump();
      });
      this.running.set(key, run);
    }
  }

  private async run(job: ProbeJob): Promise<void> {
    try {
      const mediaInfo = await this.deps.probe(job, this.config.trafficCapMb * MiB);
      await this.deps.store(job, mediaInfo);
      this.stored += 1;
      this.done.set(this.key(job), true);
      this.deps.logger.info({ itemId: job.itemId }, 'technical metadata completed during playback');
    } catch (error) {
      this.failed += 1;
      this.failedAt.set(this.key(job), this.now());
      this.deps.logger.warn({ err: error, itemId: job.itemId }, 'metadata probe failed: cooling down');
    }
  }

  private forgetQueued(): void {
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.waiting = [];
  }

  private key(job: ProbeJob): string {
    return `${job.itemId}\u0000${job.file.size}\u0000${job.file.mtime ?? ''}`;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}
