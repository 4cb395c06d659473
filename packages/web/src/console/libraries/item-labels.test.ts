import { describe, expect, it } from 'vitest';
import { countParts, episodeLabel, formatBitrate, topLevelCount } from './item-labels.js';

describe('item labels', () => {
  it('labels episodes', () => {
    expect(episodeLabel({ seasonNumber: 1, episodeNumber: 2, episodeNumberEnd: null })).toBe('S01E02');
    expect(episodeLabel({ seasonNumber: 1, episodeNumber: 1, episodeNumberEnd: 2 })).toBe('S01E01-E02');
    expect(episodeLabel({ seasonNumber: 0, episodeNumber: 3, episodeNumberEnd: 3 })).toBe('S00E03');
    expect(episodeLabel({ seasonNumber: null, episodeNumber: 12, episodeNumberEnd: null })).toBe('E12');
    expect(episodeLabel({ seasonNumber: 2, episodeNumber: null, episodeNumberEnd: null })).toBe('');
  });

  it('formats bit rates', () => {
    expect(formatBitrate(null)).toBe('—');
    expect(formatBitrate(640_000)).toBe('640 kbit/s');
    expect(formatBitrate(8_460_000)).toBe('8.5 Mbit/s');
  });

  it('lists non-zero counters and the top level', () => {
    const counts = { movies: 3, series: 1, seasons: 0, episodes: 10 };
    expect(countParts(counts)).toEqual([
      { kind: 'movies', count: 3 },
      { kind: 'series', count: 1 },
      { kind: 'episodes', count: 10 },
    ]);
    expect(topLevelCount(counts)).toBe(4);
  });
});
