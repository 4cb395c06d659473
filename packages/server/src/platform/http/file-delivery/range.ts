/**
 * The one reader of the Range request header (RFC 9110 section 14) for every file answer: the
 * play-agent's media sender reads it strictly (`parseRange`), the storage node's file routes leniently
 * (`parseSingleRange`). The strict rules (docs/streaming.md):
 *
 * - No header, an empty one, or another unit than `bytes` → `none` (200 with the whole file; RFC 9110
 *   says an unknown unit MUST be ignored).
 * - `bytes=` (unit case-insensitive) followed by 1–16 range specs `a-b`, `a-` or `-n`, separated by
 *   commas. Spaces and tabs are allowed around `=` and around commas, never inside a spec. Numbers are
 *   ASCII digits only (no signs, hex, spaces or suffixes) and at most 15 digits long (so always below
 *   Number.MAX_SAFE_INTEGER). Anything else → `malformed`.
 * - A spec is satisfiable when its first byte lies inside the file (`a < size`) or it is a suffix with a
 *   non-zero length on a non-empty file; its end is clamped to the last byte. When at least one spec is
 *   satisfiable → `ranges` (in the order the client sent them); otherwise → `unsatisfiable`.
 * - `malformed` and `unsatisfiable` are both answered with 416 and `Content-Range: bytes *\/size`: a
 *   player that sent something we cannot read gets a clear refusal, and nothing is streamed.
 * - Several ranges: the sender answers the first satisfiable one only, as a single-part 206 whose
 *   Content-Range says exactly what it holds (players never ask for several; no multipart/byteranges).
 * - A zero-length file: a suffix range would be satisfiable, but a 206 cannot describe an empty part,
 *   so it is answered as `none` (200, empty body); `0-` is unsatisfiable there as anywhere.
 */

/** Inclusive byte range, as in HTTP. */
export interface ByteRange {
  start: number;
  end: number;
}

export type RangeResult =
  /** No (or an ignorable) Range header: answer 200 with the whole file. */
  | { kind: 'none' }
  /** One or more satisfiable ranges, clamped to the file, in the client's order. */
  | { kind: 'ranges'; ranges: ByteRange[] }
  /** Well-formed, but no range overlaps the file: 416. */
  | { kind: 'unsatisfiable' }
  /** A `bytes` header that breaks the syntax or the limits: 416 as well. */
  | { kind: 'malformed'; reason: string };

/** Most range specs accepted in one header. */
export const MAX_RANGES = 16;
/** Longest number accepted: 15 digits are always below Number.MAX_SAFE_INTEGER (16 digits). */
export const MAX_DIGITS = 15;
/** Longest header accepted; far above 16 specs of 15-digit numbers. */
export const MAX_RANGE_HEADER_LENGTH = 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const OWS = /^[ \t]*|[ \t]*$/g;
const SPEC = /^(?:([0-9]{1,15})-([0-9]{1,15})?|-([0-9]{1,15}))$/;

const malformed = (reason: string): RangeResult => ({ kind: 'malformed', reason });

/**
 * Parses a Range header for a representation of `size` bytes. Never throws; work is bounded by the header
 * length cap.
 */
export function parseRange(header: string | readonly string[] | undefined, size: number): RangeResult {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid size ${size}`);
  if (header === undefined) return { kind: 'none' };
  if (typeof header !== 'string') {
    // Node joins repeated Range headers into one; an array only comes from other callers.
    if (header.length === 0) return { kind: 'none' };
    if (header.length > 1) return malformed('several Range headers');
    header = header[0]!;
  }
  if (header.length > MAX_RANGE_HEADER_LENGTH) return malformed('header too long');
  const value = header.replace(OWS, '');
  if (value === '') return { kind: 'none' };
  const equals = value.indexOf('=');
  if (equals < 0) return malformed('no "="');
  const unit = value.slice(0, equals).replace(OWS, '');
  if (!TOKEN.test(unit)) return malformed('the unit is not a token');
  if (unit.toLowerCase() !== 'bytes') return { kind: 'none' };

  const elements = value.slice(equals + 1).split(',');
  // Empty elements are ignored below, but not in unbounded numbers.
  if (elements.length > MAX_RANGES * 2) return malformed('too many ranges');
  const ranges: ByteRange[] = [];
  let specs = 0;
  let nonEmptySuffix = false;
  for (const element of elements) {
    const spec = element.replace(OWS, '');
    // RFC 9110 section 5.6.1: empty list elements are ignored.
    if (spec === '') continue;
    if (++specs > MAX_RANGES) return malformed('too many ranges');
    const match = SPEC.exec(spec);
    if (!match) return malformed(`not a range: ${spec.slice(0, 40)}`);
    const [, first, last, suffix] = match;
    if (suffix !== undefined) {
      const length = Number(suffix);
      if (length > 0) nonEmptySuffix = true;
      if (length > 0 && size > 0) ranges.push({ start: Math.max(size - length, 0), end: size - 1 });
      continue;
    }
    const start = Number(first);
    const end = last === undefined ? Number.MAX_SAFE_INTEGER : Number(last);
    if (end < start) return malformed('last byte before the first');
    if (start < size) ranges.push({ start, end: Math.min(end, size - 1) });
  }
  if (specs === 0) return malformed('no range');
  if (ranges.length > 0) return { kind: 'ranges', ranges };
  // A suffix range on an empty file is satisfiable, but a 206 cannot describe an empty part.
  if (size === 0 && nonEmptySuffix) return { kind: 'none' };
  return { kind: 'unsatisfiable' };
}

/** `Content-Range` of a 206: `bytes a-b/size`. */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** `Content-Range` of a 416: `bytes *\/size`. */
export function unsatisfiedContentRange(size: number): string {
  return `bytes */${size}`;
}

/** The `Range` header asking an upstream for exactly this range. */
export function rangeHeader(range: ByteRange): string {
  return `bytes=${range.start}-${range.end}`;
}

/** Bytes in an inclusive range. */
export function rangeLength(range: ByteRange): number {
  return range.end - range.start + 1;
}

/**
 * Reads a `Content-Range: bytes a-b/size` answer header (an upstream's 206); null when it is anything else
 * (including `*` for the size).
 */
export function parseContentRange(
  header: string | undefined,
): { start: number; end: number; size: number } | null {
  if (header === undefined || header.length > 100) return null;
  const match = /^bytes ([0-9]{1,15})-([0-9]{1,15})\/([0-9]{1,15})$/i.exec(header.trim());
  if (!match) return null;
  const [start, end, size] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (end < start || end >= size) return null;
  return { start, end, size };
}

/** The storage node's reading of a Range header: one range or the whole file. */
export type SingleRange =
  { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * The lenient policy of the storage node's file routes: one range `a-b`, `a-` or `-n` is served as 206
 * and an unsatisfiable one is 416 (`Content-Range: bytes *\/size`), but several ranges or a header that
 * cannot be read are ignored (200 with the whole file), as RFC 9110 allows. The play-agent asks it for
 * exactly one well-formed range, so its stricter rules never reach it (docs/streaming.md).
 */
export function parseSingleRange(header: string | undefined, size: number): SingleRange {
  if (header === undefined || header.includes(',')) return { kind: 'full' };
  const result = parseRange(header, size);
  if (result.kind === 'ranges') return { kind: 'partial', range: result.ranges[0]! };
  if (result.kind === 'unsatisfiable') return { kind: 'unsatisfiable' };
  return { kind: 'full' };
}
