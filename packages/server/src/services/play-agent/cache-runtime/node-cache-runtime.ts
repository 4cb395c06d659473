import { statfs } from 'node:fs/promises';
import path from 'node:path';
import {
  DEFAULT_NODE_CACHE_CONFIG,
  type CacheFlushResponse,
  type DiskUsageResponse,
  type NodeCacheConfig,
  type VfsDeleteRequest,
  type VfsDeleteResponse,
  type VfsItemsQuery,
  type VfsItemsResponse,
} from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { CacheWrapFacts, MediaSource, SourceCache } from '../stream/sources.js';
import { listEntries, type EntryFacts, type ListedEntry } from '../vfs/entry-list.js';
import { VfsCache } from '../vfs/vfs-cache.js';

/**
 * The node's caches as configured by the control plane (docs/vfs-cache.md, "On the node"): holds the
 * current video cache object, replaces it when the cache is switched on or off or its directory changes
 * (a stream keeps the object it opened; a replaced object stops once its last stream ends), passes every
 * other change to `apply()`, and answers the entry routes. Other caches of the node (the image cache)
 * follow the configuration through `onConfig` and join a flush through `onFlush`.
 */

export interface NodeCacheRuntimeOptions {
  /** The directory used while the configuration names none. */
  defaultDirectory: string;
  /** Relative configured directories are taken from here (the node's work or data directory). */
  baseDirectory: string;
  logger: Logger;
}

type FlushHandler = () => Promise<string | void>;

interface Held {
  cache: VfsCache;
  directory: string;
  streams: number;
  retired: boolean;
}

export class NodeCacheRuntime implements SourceCache {
  private config: NodeCacheConfig = DEFAULT_NODE_CACHE_CONFIG;
  private current: Held | null = null;
  private readonly held = new Set<Held>();
  private queue: Promise<void> = Promise.resolve();
  private readonly flushHandlers = new Map<string, FlushHandler>();
  private readonly configListeners = new Set<(config: NodeCacheConfig) => void>();
  private readonly facts = new Map<string, EntryFacts>();
  private stopped = false;

  constructor(private readonly options: NodeCacheRuntimeOptions) {}

  get settings(): NodeCacheConfig {
    return this.config;
  }

  /** The directory the video cache uses under the current configuration. */
  get directory(): string {
    const configured = this.config.vfs.directory;
    return configured ? path.resolve(this.options.baseDirectory, configured) : this.options.defaultDirectory;
  }

  /** The video cache in use now (null while it is off or could not be opened). */
  get cache(): VfsCache | null {
    return this.current?.cache ?? null;
  }

  /** Whether the popularity of a played item can change the cache's decision (force over the date skip). */
  get needsPopularity(): boolean {
    const { vfs } = this.config;
    return this.current !== null && vfs.forcePopularViewers > 0 && vfs.skipReleasedBeforeDays > 0;
  }

  /** Registers another cache's clear-all for `flush`; answers its removal. */
  onFlush(name: string, handler: FlushHandler): () => void {
    this.flushHandlers.set(name, handler);
    return () => this.flushHandlers.delete(name);
  }

  /** Told every configuration taken (and the current one at once). */
  onConfig(listener: (config: NodeCacheConfig) => void): () => void {
    this.configListeners.add(listener);
    listener(this.config);
    return () => this.configListeners.delete(listener);
  }

  /** Takes a configuration (pushed or pulled); changes run one after another. */
  apply(config: NodeCacheConfig): Promise<void> {
    const run = this.queue.then(() => this.take(config));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async take(config: NodeCacheConfig): Promise<void> {
    if (this.stopped) return;
    const unchanged = JSON.stringify(config) === JSON.stringify(this.config);
    this.config = config;
    if (!unchanged) for (const listener of this.configListeners) listener(config);
    const directory = this.directory;
    const held = this.current;
    if (!config.vfs.enabled) {
      if (held) this.retire(held);
      return;
    }
    if (held && held.directory === directory) {
      held.cache.apply(config.vfs);
      return;
    }
    if (held) this.retire(held);
    // Back to a directory whose object still serves streams: use it again (one store per directory).
    const again = [...this.held].find((item) => item.directory === directory);
    if (again) {
      again.retired = false;
      again.cache.apply(config.vfs);
      this.current = again;
      return;
    }
    try {
      const cache = await VfsCache.open(config.vfs, directory);
      this.current = { cache, directory, streams: 0, retired: false };
      this.held.add(this.current);
      this.options.logger.info({ directory }, 'video cache opened');
    } catch (error) {
      this.options.logger.error(
        { directory, err: error instanceof Error ? error.message : String(error) },
        'video cache could not be opened; playback goes uncached',
      );
    }
  }

  private retire(held: Held): void {
    if (this.current === held) this.current = null;
    held.retired = true;
    if (held.streams === 0) void this.release(held);
  }

  private async release(held: Held): Promise<void> {
    if (!this.held.delete(held)) return;
    await held.cache.stop().catch((error: unknown) => {
      this.options.logger.warn({ err: (error as Error).message }, 'video cache did not stop cleanly');
    });
  }

  /** The cache in front of an upstream file (the plain source while the cache is off). */
  wrap(upstream: MediaSource, file: CacheWrapFacts & { sourceId: string; name: string }): MediaSource {
    const held = this.current;
    if (!held) return upstream;
    this.facts.set(file.sourceId, {
      itemId: file.itemId ?? null,
      seriesName: file.seriesName ?? null,
      seasonNumber: file.seasonNumber ?? null,
      episodeNumber: file.episodeNumber ?? null,
    });
    const wrapped = held.cache.wrap(upstream, file);
    held.streams++;
    let closed: Promise<void> | null = null;
    return {
      kind: wrapped.kind,
      facts: (signal) => wrapped.facts(signal),
      open: (range, signal) => wrapped.open(range, signal),
      close: () =>
        (closed ??= wrapped.close().finally(() => {
          held.streams--;
          if (held.retired && held.streams === 0) void this.release(held);
        })),
    };
  }

  async diskUsage(): Promise<DiskUsageResponse> {
    const directory = this.directory;
    const usage = this.current?.cache.store.usage();
    const fileSystem = await statfs(this.current?.directory ?? directory)
      .then((stats) => ({ totalBytes: stats.blocks * stats.bsize, freeBytes: stats.bavail * stats.bsize }))
      .catch(() => null);
    return {
      enabled: this.config.vfs.enabled,
      directory,
      capacityBytes: usage?.capacityBytes ?? this.config.vfs.capacityBytes,
      usedBytes: usage?.usedBytes ?? 0,
      inFlightBytes: usage?.inFlightBytes ?? 0,
      entries: usage?.entries ?? 0,
      entriesInUse: usage?.entriesInUse ?? 0,
      fileSystem,
    };
  }

  list(query: VfsItemsQuery): VfsItemsResponse {
    const entries = (this.current?.cache.store.entries() ?? []).map(listed);
    return listEntries(entries, (sourceId) => this.facts.get(sourceId), query);
  }

  async remove(request: VfsDeleteRequest): Promise<VfsDeleteResponse> {
    const store = this.current?.cache.store;
    if ('all' in request) return store ? store.removeAll() : { removed: 0, inUse: 0 };
    const result = store ? await store.remove(request.entryId) : 'absent';
    if (result === 'in-use') {
      throw new AppError(409, 'CACHE_ENTRY_IN_USE', 'the entry is playing and cannot be deleted now');
    }
    if (result === 'absent') throw new AppError(404, 'NOT_FOUND', 'no such cache entry');
    return { removed: 1, inUse: 0 };
  }

  /** Clears the video cache (entries in use stay) and every registered cache; the configuration stays. */
  async flush(): Promise<CacheFlushResponse> {
    const vfs = await this.remove({ all: true });
    const others: CacheFlushResponse['others'] = {};
    for (const [name, handler] of this.flushHandlers) {
      try {
        const detail = await handler();
        others[name] = detail ? { ok: true, detail } : { ok: true };
      } catch (error) {
        others[name] = { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    }
    return { vfs, others };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
    this.current = null;
    await Promise.all([...this.held].map((held) => this.release(held)));
  }
}

/** The store's entry as the list takes it (the range and badge facts come from the store when it has them). */
function listed(
  entry: Omit<ListedEntry, 'ranges' | 'writeError' | 'smartRanges'> & Partial<ListedEntry>,
): ListedEntry {
  return {
    ...entry,
    ranges: entry.ranges ?? [],
    writeError: entry.writeError ?? null,
    smartRanges: entry.smartRanges ?? null,
  };
}
