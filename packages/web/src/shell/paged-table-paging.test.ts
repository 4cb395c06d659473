import { describe, expect, it } from 'vitest';
import { pageCount, pageWithinRange } from './paged-table-paging.js';

describe('page count', () => {
  it('rounds a partial last page up', () => {
    expect(pageCount(134, 20)).toBe(7);
    expect(pageCount(140, 20)).toBe(7);
    expect(pageCount(141, 20)).toBe(8);
    expect(pageCount(1, 100)).toBe(1);
  });

  it('is one page for an empty list', () => {
    expect(pageCount(0, 20)).toBe(1);
  });

  it('refuses a page size or total that cannot come from the API', () => {
    expect(() => pageCount(10, 0)).toThrow(/page size must be a positive integer, got 0/);
    expect(() => pageCount(10, 2.5)).toThrow(RangeError);
    expect(() => pageCount(-1, 20)).toThrow(/total must be a non-negative integer, got -1/);
    expect(() => pageCount(Number.NaN, 20)).toThrow(RangeError);
  });
});

describe('page within range', () => {
  it('keeps a page that exists', () => {
    expect(pageWithinRange(1, 134, 20)).toBe(1);
    expect(pageWithinRange(7, 134, 20)).toBe(7);
  });

  it('goes back to the last page when the open one emptied', () => {
    // 21 rows on pages of 20, the 21st deleted: page 2 is gone.
    expect(pageWithinRange(2, 20, 20)).toBe(1);
    expect(pageWithinRange(9, 134, 20)).toBe(7);
    expect(pageWithinRange(3, 0, 20)).toBe(1);
  });

  it('never goes below the first page', () => {
    expect(pageWithinRange(0, 134, 20)).toBe(1);
    expect(pageWithinRange(-4, 134, 20)).toBe(1);
  });

  it('refuses a fractional page', () => {
    expect(() => pageWithinRange(1.5, 134, 20)).toThrow(/page must be an integer, got 1.5/);
  });
});
