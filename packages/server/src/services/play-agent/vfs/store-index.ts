import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheEntry, EntryItem, EntryMeta } from './cache-entry.js';
import { parseJournal } from './range-journal.js';
import { totalBytes, type RangeSet } from './range-set.js';

/** The store's index of entries (cache-store.ts): one item per entry folder, open or not. */

export interface IndexItem {
  key: string;
  sourceId: string;
  name: string;
  size: number;
  bytes: number;
  /** Recorded ranges, last write error and smart plan as of the last close (the open entry's are live). */
  ranges: RangeSet;
  writeError: string | null;
  smartRanges: RangeSet | null;
  item: EntryItem | null;
  lastAccessAt: number;
  open: CacheEntry | null;
  /** Opening in progress: later acquirers share it. */
  opening: Promise<CacheEntry> | null;
  users: number;
}

export interface StoredEntryInfo {
  key: string;
  sourceId: string;
  name: string;
  size: number;
  cachedBytes: number;
  /** The recorded (servable) byte ranges. */
  ranges: RangeSet;
  lastAccessAt: number;
  inUse: boolean;
  /** Last write failure (the entry went pass-through), null when writing works. */
  writeError: string | null;
  /** Ranges of the smart startup plan, null without one (entry-badge.ts). */
  smartRanges: RangeSet | null;
  /** The library item (episode facts), when the wrapper was told. */
  item: EntryItem | null;
}

/** The index item of an entry folder found at start; null when its metadata cannot be read. */
export async function readIndexItem(folder: string, key: string): Promise<IndexItem | null> {
  let meta: EntryMeta;
  try {
    meta = JSON.parse(await readFile(path.join(folder, 'meta.json'), 'utf8')) as EntryMeta;
  } catch {
    return null;
  }
  const journal = await readFile(path.join(folder, 'ranges'), 'utf8').catch(() => '');
  const ranges = parseJournal(journal, meta.size);
  return {
    key,
    sourceId: meta.sourceId,
    name: meta.name,
    size: meta.size,
    bytes: totalBytes(ranges),
    ranges,
    writeError: meta.writeError ?? null,
    smartRanges: meta.smartRanges ?? null,
    item: meta.item ?? null,
    lastAccessAt: meta.lastAccessAt,
    open: null,
    opening: null,
    users: 0,
  };
}
