import { describe, expect, it } from 'vitest';
import { sameSetting } from './setting-values.js';

describe('comparing setting bodies', () => {
  it('ignores key order but not values', () => {
    expect(sameSetting({ a: 1, b: { c: 'x', d: [1, 2] } }, { b: { d: [1, 2], c: 'x' }, a: 1 })).toBe(true);
    expect(sameSetting({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameSetting({ list: [1, 2] }, { list: [2, 1] })).toBe(false);
    expect(sameSetting({ enabled: true }, { enabled: false })).toBe(false);
  });

  it('tells a half-typed number (NaN) from an empty value', () => {
    expect(sameSetting({ amount: Number.NaN }, { amount: null })).toBe(false);
    expect(sameSetting({ amount: Number.NaN }, { amount: Number.NaN })).toBe(true);
    expect(sameSetting({ total: null }, { total: null })).toBe(true);
  });
});
