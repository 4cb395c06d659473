import type { ByteRange } from '../../../platform/http/file-delivery/range.js';

/**
 * Sets of inclusive byte ranges, kept sorted, disjoint and non-adjacent (adjacent ranges are merged), so
 * two equal sets have equal arrays. All functions are pure and return new arrays.
 */
export type RangeSet = readonly ByteRange[];

export function rangeBytes(range: ByteRange): number {
  return range.end - range.start + 1;
}

/** Sorts and merges overlapping or adjacent ranges; drops empty ones (end < start). */
export function normalize(ranges: readonly ByteRange[]): ByteRange[] {
  const sorted = ranges.filter((range) => range.end >= range.start).sort((a, b) => a.start - b.start);
  const merged: ByteRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end + 1) {
      last.end = Math.max(last.end, range.end);
    } else {
      merged.push({ start: range.start, end: range.end });
    }
  }
  return merged;
}

export function union(set: RangeSet, ...more: (RangeSet | ByteRange)[]): ByteRange[] {
  const all: ByteRange[] = [...set];
  for (const item of more) {
    if (Array.isArray(item)) all.push(...(item as RangeSet));
    else all.push(item as ByteRange);
  }
  return normalize(all);
}

/** The parts of `set` that lie inside `range`. */
export function intersect(set: RangeSet, range: ByteRange): ByteRange[] {
  const out: ByteRange[] = [];
  for (const item of set) {
    if (item.end < range.start) continue;
    if (item.start > range.end) break;
    out.push({ start: Math.max(item.start, range.start), end: Math.min(item.end, range.end) });
  }
  return out;
}

/** The parts of `range` that `set` does not cover. */
export function missing(set: RangeSet, range: ByteRange): ByteRange[] {
  const out: ByteRange[] = [];
  let position = range.start;
  for (const item of intersect(set, range)) {
    if (item.start > position) out.push({ start: position, end: item.start - 1 });
    position = item.end + 1;
  }
  if (position <= range.end) out.push({ start: position, end: range.end });
  return out;
}

/** `set` without the bytes of `remove`. */
export function subtract(set: RangeSet, remove: RangeSet): ByteRange[] {
  let out: ByteRange[] = [...set];
  for (const cut of remove) {
    const next: ByteRange[] = [];
    for (const item of out) {
      if (cut.end < item.start || cut.start > item.end) {
        next.push(item);
        continue;
      }
      if (cut.start > item.start) next.push({ start: item.start, end: cut.start - 1 });
      if (cut.end < item.end) next.push({ start: cut.end + 1, end: item.end });
    }
    out = next;
  }
  return out;
}

export function totalBytes(set: RangeSet): number {
  return set.reduce((sum, range) => sum + rangeBytes(range), 0);
}

export function covers(set: RangeSet, range: ByteRange): boolean {
  return missing(set, range).length === 0;
}

export interface Segment {
  range: ByteRange;
  /** The bytes are in the set (local) or not (to fetch). */
  cached: boolean;
}

/** Splits a request into consecutive cached and missing segments, in order. */
export function segments(set: RangeSet, range: ByteRange): Segment[] {
  const cached = intersect(set, range).map((item) => ({ range: item, cached: true }));
  const absent = missing(set, range).map((item) => ({ range: item, cached: false }));
  return [...cached, ...absent].sort((a, b) => a.range.start - b.range.start);
}

/** Takes at most `budget` bytes from the start of the ranges, in order. */
export function truncateTo(set: RangeSet, budget: number): ByteRange[] {
  const out: ByteRange[] = [];
  let left = budget;
  for (const range of set) {
    if (left <= 0) break;
    const take = Math.min(left, rangeBytes(range));
    out.push({ start: range.start, end: range.start + take - 1 });
    left -= take;
  }
  return out;
}
