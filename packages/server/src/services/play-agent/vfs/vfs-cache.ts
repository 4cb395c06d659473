import type { VfsCacheConfig } from '@svc/contracts';
import type { MediaFacts, MediaSource } from '../stream/sources.js';
import { CacheStore } from './cache-store.js';
import { CachedSource } from './cached-source.js';
import { findContainerIndex } from './container-index.js';
import { cacheUse, DiskPressure, fileSystemUse } from './disk-pressure.js';
import { PeriodicTask } from './periodic-task.js';
import type { RangeSet } from './range-set.js';
import { BackgroundDownloads } from './read-ahead.js';
import { readRange } from './read-range.js';
import { planStartup, type StartupPlan } from './startup-plan.js';

/**
 * The node's video cache as one object (docs/vfs-cache.md): the store in its directory, the periodic
 * cleanup, the background downloads, and `wrap()`, which puts the cache in front of a media source
 * according to the mode. `apply()` takes a new configuration while streams run: capacity, retention,
 * polling and concurrency change at once; a source wrapped earlier keeps the plan it started with.
 * Not wired into the play-agent yet (docs/vfs-cache.md, "Not wired yet").
 */

export interface WrapOptions {
  sourceId: string;
  name: string;
  durationSeconds?: number | null;
  bitrate?: number | null;
  /** Told each plan (the basic one first, the smart one once the index is found): badges, tests. */
  onPlan?: (plan: StartupPlan) => void;
}

export class VfsCache {
  private readonly cleanup: PeriodicTask;
  readonly downloads: BackgroundDownloads;
  private fsUse: number | null = null;

  private constructor(
    readonly store: CacheStore,
    private config: VfsCacheConfig,
  ) {
    const pressure = new DiskPressure(() => cacheUse(this.store, this.fsUse));
    this.downloads = new BackgroundDownloads(config.backgroundConcurrency, pressure);
    this.cleanup = new PeriodicTask(() => this.clean(), config.cleanupIntervalMinutes * 60_000);
  }

  static async open(config: VfsCacheConfig, directory: string): Promise<VfsCache> {
    const store = await CacheStore.open({ directory, capacityBytes: config.capacityBytes });
    const cache = new VfsCache(store, config);
    cache.fsUse = await fileSystemUse(directory);
    cache.cleanup.start();
    return cache;
  }

  get settings(): VfsCacheConfig {
    return this.config;
  }

  /** A new configuration (the directory and `enabled` are the caller's: they need a new cache object). */
  apply(config: VfsCacheConfig): void {
    this.config = config;
    this.store.capacityBytes = config.capacityBytes;
    this.downloads.setConcurrency(config.backgroundConcurrency);
    this.cleanup.setInterval(config.cleanupIntervalMinutes * 60_000);
  }

  /** One cleanup pass: age and capacity eviction, and a fresh reading of the file system's use. */
  async clean(): Promise<void> {
    this.fsUse = await fileSystemUse(this.store.directory);
    await this.store.evict(this.config.retentionHours * 3_600_000);
  }

  /** The cache in front of a source. SMART_STARTUP keeps the startup plan's bytes; READ_AHEAD keeps all. */
  wrap(upstream: MediaSource, options: WrapOptions): CachedSource {
    const config = this.config;
    if (config.mode === 'READ_AHEAD') {
      return new CachedSource(upstream, this.store, {
        sourceId: options.sourceId,
        name: options.name,
        writable: (facts) => [{ start: 0, end: facts.size - 1 }],
      });
    }
    let plan: StartupPlan | null = null;
    let searching = false;
    const planFor = (facts: MediaFacts, index: RangeSet): StartupPlan =>
      planStartup({
        size: facts.size,
        durationSeconds: options.durationSeconds ?? null,
        bitrate: options.bitrate ?? null,
        index,
        minHeadBytes: config.minHeadBytes,
        minTailBytes: config.minTailBytes,
        perFileHardCapBytes: config.perFileHardCapBytes,
        probeBudgetBytes: config.probeBudgetBytes,
      });
    const source: CachedSource = new CachedSource(upstream, this.store, {
      sourceId: options.sourceId,
      name: options.name,
      writable: (facts) => {
        if (!plan) {
          plan = planFor(facts, []);
          options.onPlan?.(plan);
        }
        if (!searching) {
          searching = true;
          // The index search reads through the cache: its few reads land in the plan's head or index.
          void findContainerIndex(async (range) => readRange(source, range), facts.size)
            .then((found) => {
              if (found.index.length === 0) return;
              plan = planFor(facts, found.index);
              options.onPlan?.(plan);
            })
            .catch(() => undefined);
        }
        return plan.ranges;
      },
    });
    return source;
  }

  async stop(): Promise<void> {
    this.downloads.stop();
    await this.cleanup.stop();
    await this.store.close();
  }
}
