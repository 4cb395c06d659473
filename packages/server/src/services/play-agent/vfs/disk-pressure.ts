import { statfs } from 'node:fs/promises';
import type { CacheStore } from './cache-store.js';

/**
 * READ_AHEAD's brake (docs/vfs-cache.md, "Disk pressure"): read-ahead stops when the cache disk is 90 %
 * used and resumes once use is back under 80 %. We read the spec's "resumes below 10 %" as 10 points below
 * the stop mark: resuming only under 10 % use would leave read-ahead off for good on any cache worth the
 * name, and resuming right under 90 % would flap on every eviction.
 */
export const STOP_READ_AHEAD_AT = 0.9;
export const RESUME_READ_AHEAD_BELOW = 0.8;

export class DiskPressure {
  private stopped = false;

  constructor(
    private readonly usage: () => number,
    private readonly stopAt = STOP_READ_AHEAD_AT,
    private readonly resumeBelow = RESUME_READ_AHEAD_BELOW,
  ) {}

  /** Whether read-ahead must wait now (with hysteresis between the two marks). */
  get paused(): boolean {
    const use = this.usage();
    if (!this.stopped && use >= this.stopAt) this.stopped = true;
    else if (this.stopped && use < this.resumeBelow) this.stopped = false;
    return this.stopped;
  }
}

/** Share of the cache used: the larger of the configured capacity's share and the file system's. */
export function cacheUse(store: CacheStore, fileSystemUse: number | null): number {
  const { capacityBytes, usedBytes, inFlightBytes } = store.usage();
  const own = capacityBytes > 0 ? (usedBytes + inFlightBytes) / capacityBytes : 1;
  return Math.max(own, fileSystemUse ?? 0);
}

/** Used share of the file system holding `directory` (null when it cannot be read). */
export async function fileSystemUse(directory: string): Promise<number | null> {
  try {
    const stats = await statfs(directory);
    if (stats.blocks <= 0) return null;
    return 1 - stats.bavail / stats.blocks;
  } catch {
    return null;
  }
}
