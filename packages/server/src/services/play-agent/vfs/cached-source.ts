import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import type { MediaBody, MediaFacts, MediaSource } from '../stream/sources.js';
import { CachedBody, DEFAULT_BODY_OPTIONS, type CachedBodyOptions } from './cached-body.js';
import type { CacheEntry, EntryItem } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';
import type { RangeSet } from './range-set.js';

/**
 * A media source that answers from the node's video cache where it can and from the wrapped source for
 * the rest (cached-body.ts). It holds its cache entry from the first open to `close()`: an entry with an
 * open source is in use, so it is neither evicted nor deleted meanwhile.
 */

export interface CachedSourceOptions extends Partial<
  Omit<CachedBodyOptions, 'writable' | 'maxRunBytes' | 'growingRuns' | 'onProgress' | 'finishPlanRuns'>
> {
  /** Stable id of the file (e.g. `<mountId>:<path>`). */
  sourceId: string;
  /** Display name for the entry list. */
  name: string;
  /** Library facts of the file (entry list grouping). */
  item?: EntryItem | null;
  /**
   * The bytes this file may keep, from its facts (SMART_STARTUP: the startup plan; READ_AHEAD: the whole
   * file). Called again at each upstream run, so a plan refined later (index found) applies at once.
   */
  writable: (facts: MediaFacts, entry: CacheEntry) => RangeSet;
  /** Longest upstream run of a body (cached-body.ts); READ_AHEAD sets it. */
  maxRunBytes?: number;
  /** Upstream runs of a body that start short and double (cached-body.ts); SMART_STARTUP sets it. */
  growingRuns?: { firstBytes: number; maxBytes: number };
  /** Runs of plan bytes asked whole and finished when the reader leaves (cached-body.ts); SMART_STARTUP. */
  finishPlanRuns?: boolean;
  /** Told the position of a body after each chunk (the read-ahead loop). */
  onProgress?: (position: number) => void;
  /** Told once, when the entry is first opened for a body. */
  onEntry?: (entry: CacheEntry, facts: MediaFacts) => void;
  /** Told once, when the source closes (after its bodies). */
  onClose?: () => Promise<void>;
}

export class CachedSource implements MediaSource {
  readonly kind;
  private entry: Promise<CacheEntry> | null = null;
  private readonly bodies = new Set<CachedBody>();
  private closing: Promise<void> | null = null;
  private entryTold = false;
  private holds = 0;
  private upstreamClosed: Promise<void> | null = null;

  constructor(
    private readonly upstream: MediaSource,
    private readonly store: CacheStore,
    private readonly options: CachedSourceOptions,
  ) {
    this.kind = upstream.kind;
  }

  facts(signal: AbortSignal): Promise<MediaFacts> {
    return this.upstream.facts(signal);
  }

  /** The entry of this file (opened on first use). */
  async cacheEntry(signal: AbortSignal): Promise<CacheEntry> {
    this.entry ??= this.upstream.facts(signal).then((facts) =>
      this.store.acquire({
        sourceId: this.options.sourceId,
        name: this.options.name,
        size: facts.size,
        mtimeMs: facts.mtime ? facts.mtime.getTime() : null,
        etag: facts.etag ?? null,
        item: this.options.item ?? null,
      }),
    );
    // A failed open is not kept: the next open tries again.
    this.entry.catch(() => (this.entry = null));
    return this.entry;
  }

  async open(range: ByteRange, signal: AbortSignal): Promise<MediaBody> {
    if (this.closing) throw new Error('the cached source is closed');
    const facts = await this.upstream.facts(signal);
    let entry: CacheEntry;
    try {
      entry = await this.cacheEntry(signal);
    } catch {
      // The cache cannot open the entry (disk gone, permissions): stream from the source alone.
      return this.upstream.open(range, signal);
    }
    if (!this.entryTold) {
      this.entryTold = true;
      this.options.onEntry?.(entry, facts);
    }
    const body = new CachedBody(entry, this.store, this.upstream, range, signal, {
      ...DEFAULT_BODY_OPTIONS,
      ...definedOnly(this.options),
      writable: () => this.options.writable(facts, entry),
      ...(this.options.maxRunBytes !== undefined ? { maxRunBytes: this.options.maxRunBytes } : {}),
      ...(this.options.growingRuns ? { growingRuns: this.options.growingRuns } : {}),
      ...(this.options.finishPlanRuns ? { finishPlanRuns: true } : {}),
      ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
    });
    this.bodies.add(body);
    return body;
  }

  /**
   * The upstream for work that outlives the readers (background downloads): it stays open until the
   * returned function is called, even after `close()`. Its `close()` does nothing.
   */
  borrowUpstream(): { source: MediaSource; release: () => Promise<void> } {
    this.holds++;
    let released = false;
    const { upstream } = this;
    return {
      source: {
        kind: upstream.kind,
        facts: (signal) => upstream.facts(signal),
        open: (range, signal) => upstream.open(range, signal),
        close: async () => undefined,
      },
      release: async () => {
        if (released) return;
        released = true;
        this.holds--;
        if (this.closing) await this.closeUpstream();
      },
    };
  }

  private closeUpstream(): Promise<void> {
    if (this.holds > 0) return Promise.resolve();
    this.upstreamClosed ??= this.upstream.close();
    return this.upstreamClosed;
  }

  /**
   * Stops the readers. When a body finishes a run its reader left (finishPlanRuns), close() returns at
   * once and the source lets go of its entry and upstream after that run (`released`).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.bodies].map((body) => body.close()));
      const finishing = [...this.bodies].some((body) => body.finishingRun);
      // The finishing runs read the upstream: it stays open until they end.
      if (finishing) this.holds++;
      this.released = this.letGo(finishing).catch(() => undefined);
      if (!finishing) await this.released;
    })();
    return this.closing;
  }

  /** Resolves once the source let go of its entry and upstream (after the runs left to finish). */
  released: Promise<void> | null = null;

  private async letGo(finishing: boolean): Promise<void> {
    await Promise.all([...this.bodies].map((body) => body.settled));
    if (finishing) this.holds--;
    await this.options.onClose?.().catch(() => undefined);
    const entry = await this.entry?.catch(() => null);
    if (entry) await this.store.release(entry);
    await this.closeUpstream();
  }
}

function definedOnly(options: CachedSourceOptions): Partial<CachedBodyOptions> {
  const out: Partial<CachedBodyOptions> = {};
  if (options.chunkBytes !== undefined) out.chunkBytes = options.chunkBytes;
  if (options.flushBytes !== undefined) out.flushBytes = options.flushBytes;
  if (options.reserveBytes !== undefined) out.reserveBytes = options.reserveBytes;
  if (options.maxQueuedBytes !== undefined) out.maxQueuedBytes = options.maxQueuedBytes;
  return out;
}
