import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RANGES,
  contentRange,
  parseContentRange,
  parseRange,
  rangeHeader,
  unsatisfiedContentRange,
  type RangeResult,
} from '../../../src/platform/http/file-delivery/range.js';

const SIZE = 10_000;

describe('parseRange: table', () => {
  const cases: [string | undefined, number, RangeResult['kind'], [number, number][]?][] = [
    // No header or an ignorable one: the whole file.
    [undefined, SIZE, 'none'],
    ['', SIZE, 'none'],
    ['   ', SIZE, 'none'],
    ['items=0-5', SIZE, 'none'],
    ['none=', SIZE, 'none'],
    // Plain forms.
    ['bytes=0-499', SIZE, 'ranges', [[0, 499]]],
    ['bytes=500-999', SIZE, 'ranges', [[500, 999]]],
    ['bytes=500-', SIZE, 'ranges', [[500, SIZE - 1]]],
    ['bytes=0-', SIZE, 'ranges', [[0, SIZE - 1]]],
    ['bytes=-500', SIZE, 'ranges', [[SIZE - 500, SIZE - 1]]],
    ['bytes=-20000', SIZE, 'ranges', [[0, SIZE - 1]]],
    ['bytes=9999-9999', SIZE, 'ranges', [[9999, 9999]]],
    ['bytes=9000-99999', SIZE, 'ranges', [[9000, SIZE - 1]]],
    ['Bytes=1-2', SIZE, 'ranges', [[1, 2]]],
    ['BYTES=1-2', SIZE, 'ranges', [[1, 2]]],
    [' bytes = 1-2 ', SIZE, 'ranges', [[1, 2]]],
    [
      'bytes=1-2,\t4-5',
      SIZE,
      'ranges',
      [
        [1, 2],
        [4, 5],
      ],
    ],
    [
      'bytes=1-2,,4-5,',
      SIZE,
      'ranges',
      [
        [1, 2],
        [4, 5],
      ],
    ],
    ['bytes=20000-,1-2', SIZE, 'ranges', [[1, 2]]],
    ['bytes=000000000000001-2', SIZE, 'ranges', [[1, 2]]],
    ['bytes=0-999999999999999', SIZE, 'ranges', [[0, SIZE - 1]]],
    // Outside the file.
    ['bytes=10000-', SIZE, 'unsatisfiable'],
    ['bytes=10000-10005', SIZE, 'unsatisfiable'],
    ['bytes=-0', SIZE, 'unsatisfiable'],
    ['bytes=-000', SIZE, 'unsatisfiable'],
    ['bytes=999999999999999-', SIZE, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-0', 0, 'unsatisfiable'],
    // A suffix of an empty file: satisfiable, but a 206 cannot describe an empty part.
    ['bytes=-5', 0, 'none'],
    // Broken syntax or limits.
    ['bytes=', SIZE, 'malformed'],
    ['bytes=,', SIZE, 'malformed'],
    ['bytes', SIZE, 'malformed'],
    ['0-5', SIZE, 'malformed'],
    ['bytes 0-5', SIZE, 'malformed'],
    ['bytes=0-1a', SIZE, 'malformed'],
    ['bytes=1a-', SIZE, 'malformed'],
    ['bytes=a-b', SIZE, 'malformed'],
    ['bytes=0x10-', SIZE, 'malformed'],
    ['bytes=+5-10', SIZE, 'malformed'],
    ['bytes=-5-10', SIZE, 'malformed'],
    ['bytes=5--10', SIZE, 'malformed'],
    ['bytes=--5', SIZE, 'malformed'],
    ['bytes=-', SIZE, 'malformed'],
    ['bytes=1 0-20', SIZE, 'malformed'],
    ['bytes=10 -20', SIZE, 'malformed'],
    ['bytes=10- 20', SIZE, 'malformed'],
    ['bytes=1.5-2', SIZE, 'malformed'],
    ['bytes=1e3-', SIZE, 'malformed'],
    ['bytes=５-6', SIZE, 'malformed'],
    ['bytes=\u00a05-6', SIZE, 'malformed'],
    ['bytes=5-6\n', SIZE, 'malformed'],
    ['bytes=20-10', SIZE, 'malformed'],
    ['bytes=0-1=2', SIZE, 'malformed'],
    ['bytes=0-1;x', SIZE, 'malformed'],
    ['by tes=0-1', SIZE, 'malformed'],
    ['=0-1', SIZE, 'malformed'],
    ['bytes=0-1, bytes=2-3', SIZE, 'malformed'],
    ['bytes=1234567890123456-', SIZE, 'malformed'],
    ['bytes=0-1234567890123456', SIZE, 'malformed'],
    ['bytes=-1234567890123456', SIZE, 'malformed'],
    ['bytes=1234567890123456789012-', SIZE, 'malformed'],
    ['bytes=0-1234567890123456789012', SIZE, 'malformed'],
    ['bytes=9007199254740993-', SIZE, 'malformed'],
    [`bytes=${Array.from({ length: 200 }, (_, i) => `${i}-${i}`).join(',')}`, SIZE, 'malformed'],
    [`bytes=${Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i}-${i}`).join(',')}`, SIZE, 'malformed'],
    [`bytes=0-1${','.repeat(100)}`, SIZE, 'malformed'],
    [`bytes=${' '.repeat(2000)}0-1`, SIZE, 'malformed'],
  ];

  it.each(cases)('%j on %d bytes → %s', (header, size, kind, ranges) => {
    const result = parseRange(header, size);
    expect(result.kind).toBe(kind);
    if (ranges) {
      expect(result).toEqual({ kind: 'ranges', ranges: ranges.map(([start, end]) => ({ start, end })) });
    }
  });

  it('takes at most 16 ranges', () => {
    const sixteen = `bytes=${Array.from({ length: MAX_RANGES }, (_, i) => `${i * 10}-${i * 10 + 1}`).join(', ')}`;
    const result = parseRange(sixteen, SIZE);
    expect(result.kind).toBe('ranges');
    expect(result.kind === 'ranges' && result.ranges).toHaveLength(16);
  });

  it('reads a single header given as an array, refuses several', () => {
    expect(parseRange(['bytes=1-2'], SIZE)).toEqual({ kind: 'ranges', ranges: [{ start: 1, end: 2 }] });
    expect(parseRange(['bytes=1-2', 'bytes=3-4'], SIZE).kind).toBe('malformed');
    expect(parseRange([], SIZE).kind).toBe('none');
  });

  it('refuses sizes that are not byte counts', () => {
    expect(() => parseRange('bytes=0-', -1)).toThrow(RangeError);
    expect(() => parseRange('bytes=0-', 1.5)).toThrow(RangeError);
  });

  it('writes and reads Content-Range', () => {
    expect(contentRange({ start: 0, end: 9 }, 100)).toBe('bytes 0-9/100');
    expect(unsatisfiedContentRange(100)).toBe('bytes */100');
    expect(rangeHeader({ start: 5, end: 9 })).toBe('bytes=5-9');
    expect(parseContentRange('bytes 0-9/100')).toEqual({ start: 0, end: 9, size: 100 });
    expect(parseContentRange('bytes 0-100/100')).toBeNull();
    expect(parseContentRange('bytes */100')).toBeNull();
    expect(parseContentRange('bytes 9-0/100')).toBeNull();
    expect(parseContentRange(undefined)).toBeNull();
  });
});

describe('parseRange: fuzz', () => {
  const sizeArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.maxSafeNat());
  const numberText = fc.oneof(
    fc.nat({ max: 200 }).map(String),
    fc.maxSafeNat().map(String),
    fc.stringMatching(/^[0-9]{1,25}$/),
  );
  const spec = fc.oneof(
    fc.tuple(numberText, numberText).map(([a, b]) => `${a}-${b}`),
    numberText.map((a) => `${a}-`),
    numberText.map((b) => `-${b}`),
  );
  const wellFormed = fc
    .tuple(fc.constantFrom('bytes', 'Bytes', 'BYTES'), fc.array(spec, { minLength: 1, maxLength: 20 }))
    .map(([unit, specs]) => `${unit}=${specs.join(',')}`);
  const mutated = fc
    .tuple(wellFormed, fc.nat(), fc.string({ maxLength: 3, unit: 'binary' }))
    .map(([text, at, insert]) => {
      const index = at % (text.length + 1);
      return text.slice(0, index) + insert + text.slice(index);
    });
  const anything = fc.oneof(
    fc.string({ maxLength: 80, unit: 'binary' }),
    fc.string({ maxLength: 80 }).map((text) => `bytes=${text}`),
    wellFormed,
    mutated,
  );

  const check = (header: string, size: number) => {
    const result = parseRange(header, size);
    switch (result.kind) {
      case 'ranges':
        expect(result.ranges.length).toBeGreaterThan(0);
        expect(result.ranges.length).toBeLessThanOrEqual(MAX_RANGES);
        for (const range of result.ranges) {
          expect(Number.isSafeInteger(range.start)).toBe(true);
          expect(Number.isSafeInteger(range.end)).toBe(true);
          expect(range.start).toBeGreaterThanOrEqual(0);
          expect(range.start).toBeLessThanOrEqual(range.end);
          expect(range.end).toBeLessThan(size);
        }
        break;
      case 'malformed':
        expect(result).not.toHaveProperty('ranges');
        break;
      default:
        break;
    }
    return result;
  };

  it('never throws; ranges always lie inside [0, size); malformed never carries ranges', () => {
    fc.assert(
      fc.property(anything, sizeArb, (header, size) => {
        check(header, size);
      }),
      { numRuns: 10_000 },
    );
  });

  it('agrees with a reference reading of well-formed headers', () => {
    fc.assert(
      fc.property(wellFormed, sizeArb, (header, size) => {
        const result = check(header, size);
        const specs = header.slice(header.indexOf('=') + 1).split(',');
        const tooLong = specs.some((s) => s.split('-').some((n) => n.length > 15));
        const backwards = specs.some((s) => {
          const [a, b] = s.split('-');
          return a !== '' && b !== '' && Number(b) < Number(a);
        });
        if (specs.length > MAX_RANGES || tooLong || backwards) {
          expect(result.kind).toBe('malformed');
          return;
        }
        const expected = specs.flatMap((s) => {
          const [a, b] = s.split('-') as [string, string];
          if (a === '') {
            const n = Number(b);
            return n > 0 && size > 0 ? [{ start: Math.max(0, size - n), end: size - 1 }] : [];
          }
          const start = Number(a);
          if (start >= size) return [];
          return [{ start, end: b === '' ? size - 1 : Math.min(Number(b), size - 1) }];
        });
        if (expected.length > 0) expect(result).toEqual({ kind: 'ranges', ranges: expected });
        else expect(['unsatisfiable', 'none']).toContain(result.kind);
      }),
      { numRuns: 5_000 },
    );
  });

  it('answers huge and hostile headers in bounded time', () => {
    const started = performance.now();
    for (const header of [
      `bytes=${'0'.repeat(100_000)}-`,
      `bytes=${'0-0,'.repeat(50_000)}`,
      `bytes=${' '.repeat(100_000)}`,
      `${'b'.repeat(100_000)}=0-1`,
    ]) {
      expect(parseRange(header, SIZE).kind).toBe('malformed');
    }
    expect(performance.now() - started).toBeLessThan(200);
  });
});
