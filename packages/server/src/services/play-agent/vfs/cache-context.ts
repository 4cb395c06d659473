import type { VfsCacheConfig } from '@svc/contracts';
import type { MediaFacts, MediaSource } from '../stream/sources.js';
import type { CacheEntry, EntryItem } from './cache-entry.js';
import type { CacheStore } from './cache-store.js';
import { CachedSource } from './cached-source.js';
import type { DiskPressure } from './disk-pressure.js';
import type { BackgroundDownloads } from './read-ahead.js';
import type { RangeSet } from './range-set.js';
import type { WrapOptions } from './vfs-cache.js';

/** What the mode-specific wrappers (startup-source.ts, read-ahead-source.ts) share of the VfsCache. */
export interface CacheContext {
  store: CacheStore;
  downloads: BackgroundDownloads;
  pressure: DiskPressure;
  config: VfsCacheConfig;
  /** The ffprobe binary when the node has it, else null (no smart probe). */
  probeTool: string | null;
  probeTimeoutMs: number;
  /** One ffprobe at a time per node: runs the task when the previous ones are done. */
  probeSlot: <T>(task: () => Promise<T>) => Promise<T>;
  /** Paused loops look at the disk again this often (ms). */
  pollMs: number;
}

/** The fields of WrapOptions the wrappers read (vfs-cache.ts documents them). */
export type WrapTarget = Omit<WrapOptions, 'releaseDate' | 'viewersLastDay'>;

/** The library facts of a wrapped file, as the entry keeps them (null when the caller gave none). */
export function itemOf(target: WrapTarget): EntryItem | null {
  if (target.itemId === undefined && target.seriesName == null) return null;
  return {
    itemId: target.itemId ?? null,
    seriesName: target.seriesName ?? null,
    seasonNumber: target.seasonNumber ?? null,
    episodeNumber: target.episodeNumber ?? null,
  };
}

export interface FillParams {
  threads: number;
  chunkBytes: number;
}

const MiB = 1024 * 1024;
/** Fills of a drive without multithread parameters: one ranged read of 4 MiB at a time. */
export const DEFAULT_FILL: FillParams = { threads: 1, chunkBytes: 4 * MiB };

/** The multithread parameters of the drive a source lives on (docs/vfs-cache.md, "Multithread"). */
export function fillParams(config: VfsCacheConfig, driveId: string | null | undefined): FillParams {
  const drive = driveId ? config.driveThreads.find((item) => item.driveId === driveId) : undefined;
  return drive ? { threads: drive.threads, chunkBytes: drive.chunkSizeBytes } : DEFAULT_FILL;
}

/**
 * Background work on the entry of a file after its stream may have closed: a cached reader of its own
 * (the entry stays in use, so it is not evicted under the work) over the borrowed upstream.
 */
export async function withEntry<T>(
  context: CacheContext,
  upstream: MediaSource,
  target: WrapTarget,
  writable: (facts: MediaFacts, entry: CacheEntry) => RangeSet,
  signal: AbortSignal,
  work: (reader: CachedSource, entry: CacheEntry, facts: MediaFacts) => Promise<T>,
): Promise<T> {
  const reader = new CachedSource(upstream, context.store, {
    sourceId: target.sourceId,
    name: target.name,
    item: itemOf(target),
    writable,
  });
  try {
    const facts = await reader.facts(signal);
    const entry = await reader.cacheEntry(signal);
    return await work(reader, entry, facts);
  } finally {
    await reader.close();
  }
}

/** Runs `job` with the upstream borrowed from `source` until it ends (or is dropped unstarted). */
export function enqueueWithUpstream(
  context: CacheContext,
  key: string,
  source: CachedSource,
  job: (upstream: MediaSource, signal: AbortSignal, whilePaused: () => Promise<void>) => Promise<void>,
): void {
  const borrowed = source.borrowUpstream();
  const queued = context.downloads.enqueue(
    key,
    async ({ signal, whilePaused }) => {
      try {
        await job(borrowed.source, signal, whilePaused);
      } finally {
        await borrowed.release();
      }
    },
    () => void borrowed.release(),
  );
  if (!queued) void borrowed.release();
}
