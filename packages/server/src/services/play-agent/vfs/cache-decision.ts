/**
 * Whether a title is cached at all (docs/vfs-cache.md, "Skip and force"): titles released more than
 * `skipReleasedBeforeDays` days ago play without the cache, unless at least `forcePopularViewers` people
 * watched them in the last day (force wins over skip). 0 turns either rule off. An unknown release date
 * never skips; an unknown viewer count never forces.
 */

export interface CacheDecisionInput {
  /** Release date from the metadata provider (ISO date or date-time), null when unknown. */
  releaseDate?: string | null;
  viewersLastDay?: number | null;
  skipReleasedBeforeDays: number;
  forcePopularViewers: number;
  now: number;
}

export type CacheDecision = 'cache' | 'skip' | 'force';

const DAY_MS = 86_400_000;

export function cacheDecision(input: CacheDecisionInput): CacheDecision {
  const viewers = input.viewersLastDay ?? null;
  const popular = input.forcePopularViewers > 0 && viewers !== null && viewers >= input.forcePopularViewers;
  if (popular) return 'force';
  if (input.skipReleasedBeforeDays <= 0 || !input.releaseDate) return 'cache';
  const released = Date.parse(input.releaseDate);
  if (Number.isNaN(released)) return 'cache';
  return input.now - released > input.skipReleasedBeforeDays * DAY_MS ? 'skip' : 'cache';
}
