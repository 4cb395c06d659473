import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import type { MediaBody, MediaFacts, MediaSource } from '../stream/sources.js';
import { CachedBody, DEFAULT_BODY_OPTIONS, type CachedBodyOptions } from './cached-body.js';
import type { CacheEntry } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';
import type { RangeSet } from './range-set.js';

/**
 * A media source that answers from the node's video cache where it can and from the wrapped source for
 * the rest (cached-body.ts). It holds its cache entry from the first open to `close()`: an entry with an
 * open source is in use, so it is neither evicted nor deleted meanwhile.
 */

export interface CachedSourceOptions extends Partial<Omit<CachedBodyOptions, 'writable'>> {
  /** Stable id of the file (e.g. `<mountId>:<path>`). */
  sourceId: string;
  /** Display name for the entry list. */
  name: string;
  /**
   * The bytes this file may keep, from its facts (SMART_STARTUP: the startup plan; READ_AHEAD: the whole
   * file). Called again at each upstream run, so a plan refined later (index found) applies at once.
   */
  writable: (facts: MediaFacts) => RangeSet;
}

export class CachedSource implements MediaSource {
  readonly kind;
  private entry: Promise<CacheEntry> | null = null;
  private readonly bodies = new Set<CachedBody>();
  private closing: Promise<void> | null = null;

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
    const body = new CachedBody(entry, this.store, this.upstream, range, signal, {
      ...DEFAULT_BODY_OPTIONS,
      ...definedOnly(this.options),
      writable: () => this.options.writable(facts),
    });
    this.bodies.add(body);
    return body;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.bodies].map((body) => body.close()));
      const entry = await this.entry?.catch(() => null);
      if (entry) await this.store.release(entry);
      await this.upstream.close();
    })();
    return this.closing;
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
