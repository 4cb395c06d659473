import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  covers,
  intersect,
  missing,
  normalize,
  segments,
  subtract,
  totalBytes,
  truncateTo,
  union,
} from '../../../../src/services/play-agent/vfs/range-set.js';
import type { ByteRange } from '../../../../src/platform/http/file-delivery/range.js';

const SIZE = 200;
const rangeArb = fc
  .tuple(fc.integer({ min: 0, max: SIZE - 1 }), fc.integer({ min: 0, max: 40 }))
  .map(([start, length]) => ({ start, end: Math.min(SIZE - 1, start + length) }));
const setArb = fc.array(rangeArb, { maxLength: 8 }).map(normalize);

/** The model: a bitmap of the bytes a set holds. */
function bits(set: readonly ByteRange[]): boolean[] {
  const out = new Array<boolean>(SIZE).fill(false);
  for (const range of set) for (let at = range.start; at <= range.end; at++) out[at] = true;
  return out;
}

function isCanonical(set: readonly ByteRange[]): boolean {
  return set.every(
    (range, index) => range.start <= range.end && (index === 0 || range.start > set[index - 1]!.end + 1),
  );
}

describe('range sets', () => {
  it('merges overlapping and adjacent ranges and drops empty ones', () => {
    expect(
      normalize([
        { start: 10, end: 19 },
        { start: 0, end: 4 },
        { start: 5, end: 6 },
        { start: 15, end: 30 },
        { start: 40, end: 39 },
      ]),
    ).toEqual([
      { start: 0, end: 6 },
      { start: 10, end: 30 },
    ]);
  });

  it('splits a request into cached and missing segments in order', () => {
    const set = [
      { start: 0, end: 9 },
      { start: 20, end: 29 },
    ];
    expect(segments(set, { start: 5, end: 24 })).toEqual([
      { range: { start: 5, end: 9 }, cached: true },
      { range: { start: 10, end: 19 }, cached: false },
      { range: { start: 20, end: 24 }, cached: true },
    ]);
    expect(truncateTo(set, 15)).toEqual([
      { start: 0, end: 9 },
      { start: 20, end: 24 },
    ]);
  });

  it('agrees with a bitmap model for union, subtract, intersect and missing', () => {
    fc.assert(
      fc.property(setArb, setArb, rangeArb, (a, b, request) => {
        const joined = union(a, b);
        const cut = subtract(a, b);
        expect(isCanonical(joined)).toBe(true);
        expect(bits(joined)).toEqual(bits(a).map((bit, at) => bit || bits(b)[at]!));
        expect(bits(normalize(cut))).toEqual(bits(a).map((bit, at) => bit && !bits(b)[at]));
        const inside = intersect(a, request);
        const absent = missing(a, request);
        const requested = bits([request]);
        expect(bits(inside)).toEqual(bits(a).map((bit, at) => bit && requested[at]!));
        expect(bits(absent)).toEqual(bits(a).map((bit, at) => !bit && requested[at]!));
        expect(totalBytes(inside) + totalBytes(absent)).toBe(request.end - request.start + 1);
        expect(covers(a, request)).toBe(absent.length === 0);
        const parts = segments(a, request);
        expect(parts[0]?.range.start).toBe(request.start);
        parts.forEach((part, index) => {
          if (index > 0) expect(part.range.start).toBe(parts[index - 1]!.range.end + 1);
        });
      }),
    );
  });
});
