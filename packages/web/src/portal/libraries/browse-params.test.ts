import { describe, expect, it } from 'vitest';
import { itemsQuery, PAGE_SIZE, pageCount, readBrowseState, writeBrowseState } from './browse-params.js';

describe('browse state in the address', () => {
  it('reads defaults from an empty address', () => {
    expect(readBrowseState(new URLSearchParams())).toEqual({
      libraryId: null,
      search: '',
      type: null,
      page: 1,
    });
  });

  it('round-trips a full state', () => {
    const state = { libraryId: 'lib-1', search: 'star wars', type: 'series' as const, page: 3 };
    const params = writeBrowseState(state);
    expect(params.toString()).toBe('library=lib-1&q=star+wars&type=series&page=3');
    expect(readBrowseState(params)).toEqual(state);
  });

  it('leaves defaults out of the address', () => {
    expect(writeBrowseState({ libraryId: null, search: '', type: null, page: 1 }).toString()).toBe('');
  });

  it('ignores values that make no sense', () => {
    expect(readBrowseState(new URLSearchParams('type=audio&page=-2'))).toMatchObject({ type: null, page: 1 });
    expect(readBrowseState(new URLSearchParams('page=2.5'))).toMatchObject({ page: 1 });
  });
});

describe('itemsQuery', () => {
  it('pages by offset and leaves empty filters out', () => {
    expect(itemsQuery({ libraryId: null, search: '  ', type: null, page: 3 })).toEqual({
      libraryId: undefined,
      search: undefined,
      type: undefined,
      limit: PAGE_SIZE,
      offset: 2 * PAGE_SIZE,
    });
    expect(itemsQuery({ libraryId: 'l', search: ' alien ', type: 'movie', page: 1 })).toMatchObject({
      libraryId: 'l',
      search: 'alien',
      type: 'movie',
      offset: 0,
    });
  });
});

describe('pageCount', () => {
  it('is at least one page', () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(PAGE_SIZE)).toBe(1);
    expect(pageCount(PAGE_SIZE + 1)).toBe(2);
  });
});
