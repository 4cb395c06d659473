import type { MediaSource } from '../stream/sources.js';
import {
  enqueueWithUpstream,
  fillParams,
  itemOf,
  withEntry,
  type CacheContext,
  type WrapTarget,
} from './cache-context.js';
import { CachedSource } from './cached-source.js';
import { fillRanges } from './range-fill.js';
import { ReadAheadLoop } from './read-ahead-loop.js';
import { readAheadRanges } from './read-ahead.js';

/**
 * READ_AHEAD (docs/vfs-cache.md): the whole file may be kept. A stream's own upstream reads are cut
 * into runs of READ_AHEAD_RUN_BYTES and announced, so that the per-stream read-ahead loop fetches the
 * window after them (never the same bytes twice) and the stream reads the loop's bytes from disk. A
 * window of 0 queues one whole-file download per file instead, under the node-wide concurrency; it goes
 * on after the stream closes, until the file is complete (or the cache stops).
 */

export const READ_AHEAD_RUN_BYTES = 4 * 1024 * 1024;

export function readAheadSource(
  context: CacheContext,
  upstream: MediaSource,
  target: WrapTarget,
): CachedSource {
  const windowBytes = context.config.readAheadBytes;
  const fill = fillParams(context.config, target.driveId);
  let loop: ReadAheadLoop | null = null;
  const source: CachedSource = new CachedSource(upstream, context.store, {
    sourceId: target.sourceId,
    name: target.name,
    item: itemOf(target),
    writable: (facts) => [{ start: 0, end: facts.size - 1 }],
    maxRunBytes: READ_AHEAD_RUN_BYTES,
    onEntry: (entry) => {
      if (windowBytes > 0) {
        loop = new ReadAheadLoop(entry, context.store, upstream, {
          windowBytes,
          ...fill,
          pressure: context.pressure,
          pollMs: context.pollMs,
        });
        return;
      }
      if (readAheadRanges(0, 0, entry.meta.size, entry.recorded).length === 0) return;
      enqueueWithUpstream(context, `file:${target.sourceId}`, source, (borrowed, signal, whilePaused) =>
        downloadWholeFile(context, borrowed, target, signal, whilePaused).then(() => undefined),
      );
    },
    onProgress: (position) => loop?.follow(position),
    onClose: async () => {
      await loop?.stop();
    },
  });
  return source;
}

/** The whole-file background download: every missing byte, in the drive's chunks and threads. */
export function downloadWholeFile(
  context: CacheContext,
  upstream: MediaSource,
  target: WrapTarget,
  signal: AbortSignal,
  whilePaused: () => Promise<void> = async () => undefined,
): Promise<boolean> {
  return withEntry(
    context,
    upstream,
    target,
    (facts) => [{ start: 0, end: facts.size - 1 }],
    signal,
    async (_reader, entry) => {
      const wanted = readAheadRanges(0, 0, entry.meta.size, entry.claimed);
      const result = await fillRanges(entry, context.store, upstream, wanted, {
        signal,
        ...fillParams(context.config, target.driveId),
        whilePaused,
      });
      return result.complete;
    },
  );
}
