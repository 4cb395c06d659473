import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import type { MediaSource } from '../stream/sources.js';
import type { CacheEntry } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';
import { missing, rangeBytes, type RangeSet } from './range-set.js';

/**
 * Fetches byte ranges of a file into its cache entry without a reader (docs/vfs-cache.md: read-ahead,
 * whole-file downloads, the smart probe's ranges). The ranges are cut into chunks of `chunkBytes`;
 * `threads` chunks are fetched at once with ranged reads (multithread download per drive), each written
 * at its own offset, so the order in which they complete does not matter. A chunk is synced and recorded
 * before its fill ends, so a reader waiting for it finds it in the entry. Bytes already recorded, written
 * or being fetched by someone else are skipped.
 */

/** Bytes written between two records of a fill (a reader waiting for them gets them this often). */
const FLUSH_BYTES = 1024 * 1024;

export interface FillOptions {
  signal: AbortSignal;
  /** Ranged reads at once (1 = one after the other). */
  threads: number;
  chunkBytes: number;
  /** Awaited before each chunk: resolves when it may go on (disk pressure), rejects when cancelled. */
  whilePaused?: () => Promise<void>;
}

export interface FillResult {
  fetchedBytes: number;
  /** Every wanted byte is in the entry (false: no room, pass-through, or stopped). */
  complete: boolean;
}

/** Cuts ranges into consecutive pieces of at most `chunkBytes`. */
export function chunksOf(ranges: RangeSet, chunkBytes: number): ByteRange[] {
  const out: ByteRange[] = [];
  const size = Math.max(1, chunkBytes);
  for (const range of ranges) {
    for (let start = range.start; start <= range.end; start += size) {
      out.push({ start, end: Math.min(range.end, start + size - 1) });
    }
  }
  return out;
}

export async function fillRanges(
  entry: CacheEntry,
  store: CacheStore,
  upstream: MediaSource,
  wanted: RangeSet,
  options: FillOptions,
): Promise<FillResult> {
  const chunks = chunksOf(wanted, options.chunkBytes);
  let next = 0;
  let fetchedBytes = 0;
  let stopped = false;
  const failures: Error[] = [];

  const fetchPart = async (part: ByteRange): Promise<boolean> => {
    const fill = entry.fills.begin(part, true);
    const reservation = await store.reserve(rangeBytes(part));
    try {
      if (!reservation) return false;
      const body = await upstream.open(part, options.signal);
      try {
        let position = part.start;
        let unflushed = 0;
        // A reader that needs bytes far ahead may cut the fill short (entry-fills.ts): stop there.
        while (position <= fill.range.end) {
          const chunk = await body.read();
          if (chunk === null) break;
          const bytes = Buffer.from(chunk.subarray(0, fill.range.end - position + 1));
          body.release(chunk);
          fetchedBytes += bytes.length;
          if (!(await entry.write(position, bytes))) return false;
          reservation.consume(bytes.length);
          store.noteWritten(entry, bytes.length);
          position += bytes.length;
          fill.progress = position;
          unflushed += bytes.length;
          if (unflushed >= FLUSH_BYTES) {
            unflushed = 0;
            // Readers waiting for these bytes get them before the whole chunk is in.
            await entry.flush();
          }
        }
        return position > fill.range.end;
      } finally {
        await body.close();
      }
    } finally {
      reservation?.release();
      await entry.flush().catch(() => undefined);
      fill.finish();
    }
  };

  const worker = async (): Promise<void> => {
    while (!stopped && next < chunks.length) {
      const chunk = chunks[next++]!;
      try {
        await options.whilePaused?.();
        options.signal.throwIfAborted();
        for (const part of missing(entry.claimed, chunk)) {
          if (entry.passThrough || entry.closed || !(await fetchPart(part))) {
            stopped = true;
            break;
          }
        }
      } catch (error) {
        stopped = true;
        failures.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, options.threads) }, worker));
  if (failures[0]) throw failures[0];
  return { fetchedBytes, complete: !stopped };
}
