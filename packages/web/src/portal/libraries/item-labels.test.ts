import { describe, expect, it } from 'vitest';
import { episodeCode, firstSeasonToOpen, seasonTitle } from './item-labels.js';

describe('episodeCode', () => {
  it('formats season and episode numbers', () => {
    expect(episodeCode({ seasonNumber: 1, episodeNumber: 2, episodeNumberEnd: null })).toBe('S01E02');
    expect(episodeCode({ seasonNumber: 12, episodeNumber: 105, episodeNumberEnd: null })).toBe('S12E105');
  });

  it('shows the range of a multi-episode file', () => {
    expect(episodeCode({ seasonNumber: 1, episodeNumber: 1, episodeNumberEnd: 2 })).toBe('S01E01–E02');
    expect(episodeCode({ seasonNumber: 1, episodeNumber: 3, episodeNumberEnd: 3 })).toBe('S01E03');
  });

  it('copes with missing numbers', () => {
    expect(episodeCode({ seasonNumber: null, episodeNumber: 5, episodeNumberEnd: null })).toBe('E05');
    expect(episodeCode({ seasonNumber: 1, episodeNumber: null, episodeNumberEnd: null })).toBe('');
  });
});

describe('seasonTitle', () => {
  it('calls season 0 specials and keeps given names', () => {
    expect(seasonTitle({ name: 'Season 0', seasonNumber: 0 })).toEqual({ key: 'specials' });
    expect(seasonTitle({ name: 'Season 2', seasonNumber: 2 })).toEqual({ name: 'Season 2' });
  });

  it('numbers a season without a name', () => {
    expect(seasonTitle({ name: ' ', seasonNumber: 3 })).toEqual({ key: 'seasonNumber', number: 3 });
    expect(seasonTitle({ name: '', seasonNumber: null })).toEqual({ name: '—' });
  });
});

describe('firstSeasonToOpen', () => {
  it('skips the specials when there is a regular season', () => {
    expect(
      firstSeasonToOpen([
        { id: 'specials', seasonNumber: 0 },
        { id: 's1', seasonNumber: 1 },
      ]),
    ).toBe('s1');
  });

  it('opens the specials when they are all there is, and nothing without seasons', () => {
    expect(firstSeasonToOpen([{ id: 'specials', seasonNumber: 0 }])).toBe('specials');
    expect(firstSeasonToOpen([])).toBeNull();
  });
});
