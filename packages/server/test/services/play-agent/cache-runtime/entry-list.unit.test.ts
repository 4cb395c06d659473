import { describe, expect, it } from 'vitest';
import { vfsItemsQuerySchema } from '@svc/contracts';
import {
  listEntries,
  type EntryFacts,
  type ListedEntry,
} from '../../../../src/services/play-agent/vfs/entry-list.js';

const entry = (key: string, size: number, cachedBytes: number, lastAccessAt: number): ListedEntry => ({
  key,
  sourceId: `m:/${key}.mkv`,
  name: `${key}.mkv`,
  size,
  cachedBytes,
  lastAccessAt,
  inUse: false,
  ranges: [
    { start: 0, end: 99 },
    { start: 500, end: 599 },
    { start: size - 50, end: size - 1 },
  ],
  writeError: null,
  smartRanges: null,
});

const entries = [
  entry('movie', 10_000, 300, 1_000),
  entry('ep2', 8_000, 900, 3_000),
  entry('ep1', 9_000, 100, 2_000),
  entry('other-show', 7_000, 50, 500),
];
const facts: Record<string, EntryFacts> = {
  'm:/ep1.mkv': { itemId: 'i1', seriesName: 'Show', seasonNumber: 1, episodeNumber: 1 },
  'm:/ep2.mkv': { itemId: 'i2', seriesName: 'Show', seasonNumber: 1, episodeNumber: 2 },
  'm:/other-show.mkv': { itemId: 'i3', seriesName: 'Other', seasonNumber: 2, episodeNumber: 5 },
};
const list = (query: Record<string, unknown>) =>
  listEntries(entries, (sourceId) => facts[sourceId], vfsItemsQuerySchema.parse(query));

describe('the VFS entry list', () => {
  it('sorts by each key in both orders and pages', () => {
    expect(list({ sort: 'cachedBytes', order: 'desc' }).rows.map((row) => row.key)).toEqual([
      'ep2',
      'movie',
      'ep1',
      'other-show',
    ]);
    expect(list({ sort: 'totalBytes', order: 'asc' }).rows.map((row) => row.key)).toEqual([
      'other-show',
      'ep2',
      'ep1',
      'movie',
    ]);
    const page = list({ sort: 'lastAccess', order: 'desc', page: '2', pageSize: '3' });
    expect(page).toMatchObject({ total: 4, page: 2, pageSize: 3 });
    expect(page.rows.map((row) => row.key)).toEqual(['other-show']);
  });

  it('groups the episodes of a season in one row, ordered by episode, with summed sizes', () => {
    const grouped = list({ groupByEpisodes: 'true', sort: 'cachedBytes', order: 'desc' });
    expect(grouped.total).toBe(3);
    const show = grouped.rows[0]!;
    expect(show).toMatchObject({
      key: 'series:Show:1',
      name: 'Show S01',
      cachedBytes: 1_000,
      totalBytes: 17_000,
    });
    expect(show.entries.map((item) => item.episodeNumber)).toEqual([1, 2]);
    expect(show.lastAccessAt).toBe(new Date(3_000).toISOString());
  });

  it('filters by keyword on name, source and series, and labels the ranges', () => {
    expect(list({ keyword: 'OTHER' }).rows.map((row) => row.key)).toEqual(['other-show']);
    expect(list({ keyword: 'show' }).total).toBe(3);
    const [movie] = list({ keyword: 'movie' }).rows[0]!.entries;
    expect(movie!.ranges.map((range) => range.part)).toEqual(['head', 'middle', 'tail']);
    expect(movie!.badge).toBe('BASIC_HEAD_TAIL');
    expect(movie!.seriesName).toBeNull();
  });
});
