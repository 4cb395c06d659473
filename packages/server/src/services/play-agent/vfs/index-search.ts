import type { CacheEntry } from './cache-entry.js';
import type { RangeSet } from './range-set.js';

/**
 * One container-index search per open entry (one version of a file), shared by every reader of it: a
 * short request (ffprobe, a first-byte check) neither starts its own search nor ends the shared one when
 * it closes. A failed or cancelled search is forgotten, so the next reader tries again; a search that
 * found nothing is kept (the file has no index we can find).
 */
const searches = new WeakMap<CacheEntry, Promise<RangeSet>>();

export function sharedIndexSearch(entry: CacheEntry, search: () => Promise<RangeSet>): Promise<RangeSet> {
  const running = searches.get(entry);
  if (running) return running;
  const started = search();
  searches.set(entry, started);
  started.catch(() => {
    if (searches.get(entry) === started) searches.delete(entry);
  });
  return started;
}
