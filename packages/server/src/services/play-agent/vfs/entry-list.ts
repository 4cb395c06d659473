import type { VfsItem, VfsItemRow, VfsItemsQuery, VfsItemsResponse } from '@svc/contracts';
import { entryBadge } from './entry-badge.js';
import type { RangeSet } from './range-set.js';

/**
 * The entry list of the console's cache page (docs/vfs-cache.md, "Endpoints"): keyword filter, optional
 * grouping of episodes by series and season, sorting and paging. Pure: the runtime hands it the store's
 * entries and the library facts it saw when the files were played.
 */

export interface ListedEntry {
  key: string;
  sourceId: string;
  name: string;
  size: number;
  cachedBytes: number;
  lastAccessAt: number;
  inUse: boolean;
  /** Recorded (servable) ranges. */
  ranges: RangeSet;
  writeError: string | null;
  smartRanges: RangeSet | null;
}

/** What the node knew about the file's media item when it was last wrapped (not kept across restarts). */
export interface EntryFacts {
  itemId: string | null;
  seriesName: string | null;
  seasonNumber: number | null;
  episodeNumber: number | null;
}

const NO_FACTS: EntryFacts = { itemId: null, seriesName: null, seasonNumber: null, episodeNumber: null };

export function toItem(entry: ListedEntry, facts: EntryFacts | undefined): VfsItem {
  const last = entry.size - 1;
  return {
    id: entry.key,
    sourceId: entry.sourceId,
    name: entry.name,
    totalBytes: entry.size,
    cachedBytes: entry.cachedBytes,
    lastAccessAt: new Date(entry.lastAccessAt).toISOString(),
    badge: entryBadge({
      inUse: entry.inUse,
      writeError: entry.writeError,
      smartRanges: entry.smartRanges,
      ranges: entry.ranges,
    }),
    ranges: entry.ranges.map((range) => ({
      start: range.start,
      end: range.end,
      part: range.start === 0 ? 'head' : range.end === last ? 'tail' : 'middle',
    })),
    ...(facts ?? NO_FACTS),
  };
}

function matches(item: VfsItem, keyword: string | undefined): boolean {
  if (!keyword) return true;
  const wanted = keyword.toLowerCase();
  return [item.name, item.sourceId, item.seriesName ?? ''].some((text) =>
    text.toLowerCase().includes(wanted),
  );
}

function rowOf(key: string, name: string, entries: VfsItem[]): VfsItemRow {
  return {
    key,
    name,
    totalBytes: entries.reduce((sum, entry) => sum + entry.totalBytes, 0),
    cachedBytes: entries.reduce((sum, entry) => sum + entry.cachedBytes, 0),
    lastAccessAt:
      entries
        .map((entry) => entry.lastAccessAt)
        .sort()
        .at(-1) ?? new Date(0).toISOString(),
    entries,
  };
}

/** Episodes of one season of a series share a row (ordered by episode); everything else is a row alone. */
function groupRows(items: VfsItem[]): VfsItemRow[] {
  const groups = new Map<string, VfsItem[]>();
  const rows: VfsItemRow[] = [];
  for (const item of items) {
    if (item.seriesName === null) {
      rows.push(rowOf(item.id, item.name, [item]));
      continue;
    }
    const key = `series:${item.seriesName}:${item.seasonNumber ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  for (const [key, entries] of groups) {
    entries.sort((a, b) => (a.episodeNumber ?? 0) - (b.episodeNumber ?? 0) || a.name.localeCompare(b.name));
    const first = entries[0]!;
    const season = first.seasonNumber === null ? '' : ` S${String(first.seasonNumber).padStart(2, '0')}`;
    rows.push(rowOf(key, `${first.seriesName}${season}`, entries));
  }
  return rows;
}

export function listEntries(
  entries: readonly ListedEntry[],
  facts: (sourceId: string) => EntryFacts | undefined,
  query: VfsItemsQuery,
): VfsItemsResponse {
  const items = entries
    .map((entry) => toItem(entry, facts(entry.sourceId)))
    .filter((item) => matches(item, query.keyword));
  const rows = query.groupByEpisodes
    ? groupRows(items)
    : items.map((item) => rowOf(item.id, item.name, [item]));
  const value = (row: VfsItemRow): number | string =>
    query.sort === 'cachedBytes'
      ? row.cachedBytes
      : query.sort === 'totalBytes'
        ? row.totalBytes
        : row.lastAccessAt;
  const direction = query.order === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    const left = value(a);
    const right = value(b);
    const order = left < right ? -1 : left > right ? 1 : a.key.localeCompare(b.key) * direction;
    return order * direction;
  });
  const start = (query.page - 1) * query.pageSize;
  return {
    total: rows.length,
    page: query.page,
    pageSize: query.pageSize,
    rows: rows.slice(start, start + query.pageSize),
  };
}
