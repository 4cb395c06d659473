import { LRUCache } from 'lru-cache';

/** A count is asked again after this long. */
export const VIEWER_COUNT_FRESH_MS = 5 * 60_000;
/** Playback does not wait longer than this for a count it does not have: it starts without one. */
export const VIEWER_COUNT_WAIT_MS = 1_000;

/**
 * Distinct viewers of an item in the last day, as the user service counts them, kept on the node a few
 * minutes (docs/vfs-cache.md, "Playback"). Unknown (null) when the user service does not answer in time;
 * a late answer is still kept for the next stream.
 */
export class ViewerCounts {
  private readonly counts = new LRUCache<string, number>({ max: 10_000, ttl: VIEWER_COUNT_FRESH_MS });
  private readonly asking = new Map<string, Promise<number | null>>();

  constructor(
    private readonly fetch: (itemId: string) => Promise<number>,
    private readonly waitMs = VIEWER_COUNT_WAIT_MS,
  ) {}

  async lookup(itemId: string): Promise<number | null> {
    const known = this.counts.get(itemId);
    if (known !== undefined) return known;
    let pending = this.asking.get(itemId);
    if (!pending) {
      pending = this.fetch(itemId)
        .then((count) => {
          this.counts.set(itemId, count);
          return count;
        })
        .catch(() => null)
        .finally(() => this.asking.delete(itemId));
      this.asking.set(itemId, pending);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.waitMs);
      timer.unref();
    });
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
