import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import { normalize, subtract, totalBytes, truncateTo, union, type RangeSet } from './range-set.js';

/**
 * SMART_STARTUP: which bytes of a file the cache keeps (docs/vfs-cache.md, "SMART_STARTUP"). The head
 * holds about `headSeconds` of playback at the file's bitrate (at least the minimum head); the container
 * index (container-index.ts) is kept wherever it lies, else a basic tail of the minimum tail size; byte
 * ranges the probe tool read are added up to the probe budget. Everything together stays within the
 * per-file hard cap; the index comes before the head beyond its minimum, because a player cannot start
 * without it.
 */

export const STARTUP_HEAD_SECONDS = 8;

export interface StartupPlanInput {
  size: number;
  /** Known duration (library metadata), seconds. */
  durationSeconds?: number | null;
  /** Known overall bitrate, bits per second (wins over size / duration). */
  bitrate?: number | null;
  /** Index ranges found in the container (empty: none found). */
  index: readonly ByteRange[];
  /** Ranges the probe tool was seen reading (smart probe). */
  probeRanges?: readonly ByteRange[];
  minHeadBytes: number;
  minTailBytes: number;
  perFileHardCapBytes: number;
  probeBudgetBytes: number;
  headSeconds?: number;
}

export interface StartupPlan {
  ranges: ByteRange[];
  /** smart: the container index was found; basic: head and a fixed tail. */
  kind: 'smart' | 'basic';
  headBytes: number;
  bytes: number;
}

/** Bytes of `seconds` of playback, when the bitrate can be known. */
export function headTargetBytes(input: StartupPlanInput): number {
  const seconds = input.headSeconds ?? STARTUP_HEAD_SECONDS;
  let bitrate = input.bitrate ?? null;
  if ((bitrate === null || bitrate <= 0) && input.durationSeconds && input.durationSeconds > 0) {
    bitrate = (input.size * 8) / input.durationSeconds;
  }
  const target = bitrate && bitrate > 0 ? Math.ceil((bitrate * seconds) / 8) : 0;
  return Math.max(input.minHeadBytes, target);
}

export function planStartup(input: StartupPlanInput): StartupPlan {
  const { size } = input;
  if (size <= 0) return { ranges: [], kind: 'basic', headBytes: 0, bytes: 0 };
  const cap = Math.min(input.perFileHardCapBytes, size);
  const wantedHead = Math.min(headTargetBytes(input), size);
  const kind = input.index.length > 0 ? 'smart' : 'basic';
  const tail: RangeSet =
    kind === 'smart'
      ? normalize(input.index.map((range) => ({ start: range.start, end: Math.min(range.end, size - 1) })))
      : [{ start: Math.max(0, size - input.minTailBytes), end: size - 1 }];
  // The index may take what the head does not need for its minimum.
  const guaranteedHead = Math.min(wantedHead, input.minHeadBytes, cap);
  const tailPart = subtract(tail, [{ start: 0, end: guaranteedHead - 1 }]);
  const keptTail = truncateTo(tailPart, cap - guaranteedHead);
  const headBytes = Math.max(guaranteedHead, Math.min(wantedHead, cap - totalBytes(keptTail)));
  let ranges = union(keptTail, { start: 0, end: headBytes - 1 });
  // Shrinking the head can only grow the room; the union may overlap the tail, never exceed the cap.
  const probe = subtract(normalize([...(input.probeRanges ?? [])]), ranges);
  const room = Math.min(input.probeBudgetBytes, cap - totalBytes(ranges));
  if (room > 0) ranges = union(ranges, truncateTo(probe, room));
  return { ranges, kind, headBytes, bytes: totalBytes(ranges) };
}
