import { resolve } from 'node:path';
import type { ImageCacheConfig } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import { PeriodicTask } from '../vfs/periodic-task.js';
import { etagOf, ImageStore, type ImageFacts, type StoredImage } from './image-store.js';

/** An image as the artwork route answers it. */
export interface ImageAnswer {
  body: Buffer;
  contentType: string;
  etag: string;
  /** The item whose artwork it is. */
  itemId: string;
  /** Served from the cache (false: just fetched). */
  hit: boolean;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The play-agent's image cache (docs/image-cache.md): every artwork answer goes through `image()`, which
 * answers from disk or runs `fetch` once for concurrent requests of one key and stores the result. It takes
 * its settings as a plain object (`apply`, also at run time) and has one invalidation only, `clearAll`.
 */
export class ImageCache {
  private config: ImageCacheConfig;
  private store: ImageStore | null = null;
  private opening: Promise<ImageStore | null> | null = null;
  private readonly running = new Map<string, Promise<ImageAnswer | null>>();
  private readonly cleanup: PeriodicTask;
  private started = false;

  constructor(
    config: ImageCacheConfig,
    private readonly deps: {
      /** Where `directory: null` points (built-in node: settings.imageCacheDir; external: ./image_cache). */
      defaultDirectory: string;
      logger: Logger;
      now?: () => number;
    },
  ) {
    this.config = config;
    this.cleanup = new PeriodicTask(
      () => this.sweep(),
      config.cleanupIntervalMinutes * 60_000,
      (error) => deps.logger.warn({ err: error }, 'image cache cleanup failed'),
    );
  }

  get directory(): string {
    return resolve(this.config.directory ?? this.deps.defaultDirectory);
  }

  /** Takes new settings: another directory opens that one (the old files stay), a smaller capacity evicts. */
  apply(config: ImageCacheConfig): void {
    const moved = resolve(config.directory ?? this.deps.defaultDirectory) !== this.directory;
    this.config = config;
    if (moved || !config.enabled) {
      this.store = null;
      this.opening = null;
    }
    this.cleanup.setInterval(config.cleanupIntervalMinutes * 60_000);
    if (this.started) void this.cleanup.runNow();
  }

  start(): void {
    this.started = true;
    this.cleanup.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.cleanup.stop();
    await Promise.allSettled(this.running.values());
  }

  stats(): { enabled: boolean; directory: string; entries: number; bytes: number } {
    const { entries, bytes } = this.store?.stats() ?? { entries: 0, bytes: 0 };
    return { enabled: this.config.enabled, directory: this.directory, entries, bytes };
  }

  /** Removes every cached image (the flush); the settings stay. */
  async clearAll(): Promise<void> {
    const store = await this.open();
    await store?.clear();
  }

  /**
   * The image of `key`: from the cache, else `fetch()` (null: there is none, nothing is stored). With the
   * cache off, or when the disk fails, the fetched image is answered without being kept.
   */
  async image(
    key: string,
    fetch: () => Promise<Omit<StoredImage, 'etag'> | null>,
  ): Promise<ImageAnswer | null> {
    const store = await this.open();
    if (store) {
      const stored = await store.get(key, this.retentionMs()).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'image cache read failed');
        return undefined;
      });
      if (stored) return { ...stored, hit: true };
    }
    let run = this.running.get(key);
    if (!run) {
      run = this.fetchAndStore(store, key, fetch).finally(() => this.running.delete(key));
      this.running.set(key, run);
    }
    return run;
  }

  /**
   * What the cache knows of `key` without reading the image (for a revalidation): undefined when it is not
   * cached, the cache is off, or the disk fails. Counts as an access.
   */
  async cachedFacts(key: string): Promise<ImageFacts | undefined> {
    const store = await this.open();
    if (!store) return undefined;
    return store.facts(key, this.retentionMs()).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'image cache read failed');
      return undefined;
    });
  }

  private async fetchAndStore(
    store: ImageStore | null,
    key: string,
    fetch: () => Promise<Omit<StoredImage, 'etag'> | null>,
  ): Promise<ImageAnswer | null> {
    const image = await fetch();
    if (!image) return null;
    let etag = etagOf(image.body);
    if (store) {
      const limits = { retentionMs: this.retentionMs(), capacityBytes: this.config.capacityBytes };
      etag = await store.put(key, image, limits).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'image cache write failed');
        return etag;
      });
    }
    return { ...image, etag, hit: false };
  }

  private retentionMs(): number {
    return this.config.retentionHours * HOUR_MS;
  }

  /** One cleanup pass now (the polling runs the same): expired images, then capacity. */
  cleanupNow(): Promise<void> {
    return this.cleanup.runNow();
  }

  private async sweep(): Promise<void> {
    const store = await this.open();
    if (!store) return;
    const expired = await store.removeExpired();
    const evicted = await store.evictTo(this.config.capacityBytes);
    if (expired + evicted > 0) this.deps.logger.info({ expired, evicted }, 'image cache cleaned');
  }

  /** The store of the current directory, opened (index read from the sidecars) on first use. */
  private open(): Promise<ImageStore | null> {
    if (!this.config.enabled) return Promise.resolve(null);
    if (this.store) return Promise.resolve(this.store);
    const directory = this.directory;
    this.opening ??= (async () => {
      const store = new ImageStore(directory, this.deps.now ?? Date.now);
      try {
        await store.open();
      } catch (error) {
        this.deps.logger.warn({ err: error, directory }, 'image cache directory not usable: not caching');
        this.opening = null;
        return null;
      }
      if (this.directory === directory && this.config.enabled) this.store = store;
      this.opening = null;
      return store;
    })();
    return this.opening;
  }
}
