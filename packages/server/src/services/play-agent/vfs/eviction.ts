/**
 * Which entries to remove (docs/vfs-cache.md, "Eviction"): every entry not accessed within the retention,
 * then the least recently used ones until the wanted bytes fit the capacity. Entries in use (open
 * readers) are never chosen, even when the cache stays over capacity because of them.
 */
export interface EvictionCandidate {
  key: string;
  bytes: number;
  lastAccessAt: number;
  inUse: boolean;
}

export interface EvictionInput {
  entries: readonly EvictionCandidate[];
  /** Bytes held now (written plus in flight). */
  held: number;
  capacity: number;
  /** Bytes a caller wants to reserve on top (0 for the periodic cleanup). */
  wanted: number;
  now: number;
  /** Maximum age since last access; null = no age limit. */
  retentionMs: number | null;
}

export interface EvictionPlan {
  expired: string[];
  lru: string[];
  /** Bytes held after removing the victims. */
  heldAfter: number;
}

export function planEviction(input: EvictionInput): EvictionPlan {
  const free = input.entries.filter((entry) => !entry.inUse);
  const expired =
    input.retentionMs === null
      ? []
      : free.filter((entry) => input.now - entry.lastAccessAt > (input.retentionMs ?? 0));
  let held = input.held - expired.reduce((sum, entry) => sum + entry.bytes, 0);
  const expiredKeys = new Set(expired.map((entry) => entry.key));
  const lru: string[] = [];
  const byAge = free
    .filter((entry) => !expiredKeys.has(entry.key))
    .sort((a, b) => a.lastAccessAt - b.lastAccessAt || a.key.localeCompare(b.key));
  for (const entry of byAge) {
    if (held + input.wanted <= input.capacity) break;
    lru.push(entry.key);
    held -= entry.bytes;
  }
  return { expired: [...expiredKeys], lru, heldAfter: held };
}
