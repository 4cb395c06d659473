import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_VFS_CACHE_CONFIG, type VfsCacheConfig } from '@svc/contracts';
import { entryKey } from '../../src/services/play-agent/vfs/cache-store.js';
import { parseJournal } from '../../src/services/play-agent/vfs/range-journal.js';
import type { RangeSet } from '../../src/services/play-agent/vfs/range-set.js';
import type { VfsCache } from '../../src/services/play-agent/vfs/vfs-cache.js';
import { waitUntil } from '../support/wait.js';

const KiB = 1024;

/**
 * SMART_STARTUP scaled to clips of a few MB (the presets' sizes would swallow a whole clip): a 256 KiB
 * minimum head, a 64 KiB basic tail, 1 MiB per file.
 */
export const SMALL_SMART: VfsCacheConfig = {
  ...DEFAULT_VFS_CACHE_CONFIG,
  enabled: true,
  mode: 'SMART_STARTUP',
  preset: 'custom',
  minHeadBytes: 256 * KiB,
  minTailBytes: 64 * KiB,
  perFileHardCapBytes: 1024 * KiB,
  probeBudgetBytes: 256 * KiB,
};

/** The verified ranges an entry holds on disk (its journal) in a cache directory. */
export async function recordedRanges(directory: string, sourceId: string, size: number): Promise<RangeSet> {
  const text = await readFile(path.join(directory, entryKey(sourceId), 'ranges'), 'utf8');
  return parseJournal(text, size);
}

/** Quiet time after which the link counts as idle (see `settled`). */
const QUIET_MS = 300;

type Link = { readonly active: number; stats: { requests: number } };

/**
 * Waits until `ready` holds and the link has been idle for a moment: a transfer the cache dropped, or an
 * upstream run a reader started just as its client left, reaches the proxy a little after the entry is
 * released. That part is a timed quiet window because "no further request comes" has no event to wait for.
 */
export async function linkIdle(link: Link, ready: () => boolean = () => true): Promise<void> {
  let requests = -1;
  let quietSince = 0;
  await waitUntil(
    () => {
      if (!ready() || link.active !== 0 || link.stats.requests !== requests) {
        requests = link.stats.requests;
        quietSince = Date.now();
        return false;
      }
      return Date.now() - quietSince >= QUIET_MS;
    },
    'the cache readers to leave and the link to be idle',
    30_000,
  );
}

/**
 * Waits until only the `playing` entries the test holds are in use and the link is idle. With nothing
 * playing, the background jobs (the startup job after a stream, downloads) must have ended too: a queued
 * job does not hold its entry yet.
 */
export async function settled(cache: VfsCache, link: Link, playing = 0): Promise<void> {
  const { downloads } = cache;
  await linkIdle(
    link,
    () =>
      cache.store.entries().filter((entry) => entry.inUse).length <= playing &&
      (playing > 0 || downloads.runningCount + downloads.waitingCount === 0),
  );
}
