import type { VfsCacheConfig } from '@svc/contracts';
import type { CacheWrapFacts, MediaSource } from '../stream/sources.js';
import { cacheDecision } from './cache-decision.js';
import type { CacheContext } from './cache-context.js';
import { CacheStore, LINGER_MS } from './cache-store.js';
import { cacheUse, DiskPressure, fileSystemUse } from './disk-pressure.js';
import { PeriodicTask } from './periodic-task.js';
import { probeToolPresent } from './probe-observer.js';
import { readAheadSource } from './read-ahead-source.js';
import { BackgroundDownloads } from './read-ahead.js';
import type { StartupPlan } from './startup-plan.js';
import { startupSource } from './startup-source.js';

/**
 * The node's video cache as one object (docs/vfs-cache.md): the store in its directory, the periodic
 * cleanup, the background downloads, and `wrap()`, which puts the cache in front of a media source
 * according to the mode (startup-source.ts, read-ahead-source.ts). `apply()` takes a new configuration
 * while streams run: capacity, retention, polling and concurrency change at once; a source wrapped
 * earlier keeps the settings it started with.
 */

export interface WrapOptions extends CacheWrapFacts {
  sourceId: string;
  name: string;
  /** Told each plan (the basic one first, the smart one once the index is found): badges, tests. */
  onPlan?: (plan: StartupPlan) => void;
}

export interface VfsEngineOptions {
  /** The ffprobe binary for the smart probe; null: the node has none; absent: look for `ffprobe`. */
  probeTool?: string | null;
  /** ffprobe is stopped after this long (default 60 s). */
  probeTimeoutMs?: number;
  /** Paused downloads and read-ahead look at the disk again this often (default 1 s). */
  pollMs?: number;
  /** An entry stays open this long after its last reader (default LINGER_MS; cache-store.ts). */
  lingerMs?: number;
}

export class VfsCache {
  private readonly cleanup: PeriodicTask;
  readonly downloads: BackgroundDownloads;
  private readonly pressure: DiskPressure;
  private fsUse: number | null = null;
  private probeQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly store: CacheStore,
    private config: VfsCacheConfig,
    private readonly probeTool: string | null,
    private readonly engine: VfsEngineOptions,
  ) {
    this.pressure = new DiskPressure(() => cacheUse(this.store, this.fsUse));
    this.downloads = new BackgroundDownloads(config.backgroundConcurrency, this.pressure, engine.pollMs);
    this.cleanup = new PeriodicTask(() => this.clean(), config.cleanupIntervalMinutes * 60_000);
  }

  static async open(
    config: VfsCacheConfig,
    directory: string,
    engine: VfsEngineOptions = {},
  ): Promise<VfsCache> {
    const store = await CacheStore.open({
      directory,
      capacityBytes: config.capacityBytes,
      lingerMs: engine.lingerMs ?? LINGER_MS,
    });
    let probeTool = engine.probeTool === undefined ? 'ffprobe' : engine.probeTool;
    if (probeTool !== null && !(await probeToolPresent(probeTool))) probeTool = null;
    const cache = new VfsCache(store, config, probeTool, engine);
    cache.fsUse = await fileSystemUse(directory);
    cache.cleanup.start();
    return cache;
  }

  get settings(): VfsCacheConfig {
    return this.config;
  }

  /** Whether the smart probe can run on this node (ffprobe found). */
  get probeAvailable(): boolean {
    return this.probeTool !== null;
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

  /** What the wrappers share, with the configuration of this moment. */
  context(): CacheContext {
    return {
      store: this.store,
      downloads: this.downloads,
      pressure: this.pressure,
      config: this.config,
      probeTool: this.probeTool,
      probeTimeoutMs: this.engine.probeTimeoutMs ?? 60_000,
      probeSlot: (task) => {
        const run = this.probeQueue.then(task, task);
        this.probeQueue = run.catch(() => undefined);
        return run;
      },
      pollMs: this.engine.pollMs ?? 1000,
    };
  }

  /**
   * The cache in front of a source: SMART_STARTUP keeps the startup plan's bytes, READ_AHEAD the whole
   * file. A title skipped by its release date (and not popular enough to force) gets the plain source.
   */
  wrap(upstream: MediaSource, options: WrapOptions): MediaSource {
    const config = this.config;
    const decision = cacheDecision({
      releaseDate: options.releaseDate ?? null,
      viewersLastDay: options.viewersLastDay ?? null,
      skipReleasedBeforeDays: config.skipReleasedBeforeDays,
      forcePopularViewers: config.forcePopularViewers,
      now: Date.now(),
    });
    if (decision === 'skip') return upstream;
    const context = this.context();
    return config.mode === 'READ_AHEAD'
      ? readAheadSource(context, upstream, options)
      : startupSource(context, upstream, options);
  }

  async stop(): Promise<void> {
    this.downloads.stop();
    // Aborted jobs end quickly (their fetches and ffprobe are cancelled); their entries close with them.
    await this.downloads.idle();
    await this.cleanup.stop();
    await this.store.close();
  }
}
