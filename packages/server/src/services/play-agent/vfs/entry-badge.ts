import { rangeBytes, totalBytes, intersect, type RangeSet } from './range-set.js';

/**
 * The badge of a cache entry in the entry list (docs/vfs-cache.md, "Badges"), first match wins:
 * PLAYING while the entry is in use; CACHE_FAILED when its last write failed (it went pass-through) and
 * nothing was recorded since; SMART_READY when the smart startup plan (container index found) is fully
 * recorded; BASIC_HEAD_TAIL otherwise (basic plan, smart plan still filling, or read-ahead bytes).
 */

export type EntryBadge = 'SMART_READY' | 'CACHE_FAILED' | 'BASIC_HEAD_TAIL' | 'PLAYING';

export interface BadgeInput {
  inUse: boolean;
  /** The last write error of the entry (e.g. ENOSPC), null when writing works. */
  writeError: string | null;
  /** The ranges of the entry's smart startup plan, null when it has none (basic plan, read-ahead). */
  smartRanges: RangeSet | null;
  /** The recorded (servable) ranges. */
  ranges: RangeSet;
}

export function entryBadge(entry: BadgeInput): EntryBadge {
  if (entry.inUse) return 'PLAYING';
  if (entry.writeError !== null) return 'CACHE_FAILED';
  if (entry.smartRanges && entry.smartRanges.length > 0 && allRecorded(entry.smartRanges, entry.ranges)) {
    return 'SMART_READY';
  }
  return 'BASIC_HEAD_TAIL';
}

function allRecorded(wanted: RangeSet, recorded: RangeSet): boolean {
  return wanted.every((range) => totalBytes(intersect(recorded, range)) === rangeBytes(range));
}
