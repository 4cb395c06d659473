/** Ticks of the client protocol: 100 ns, 10^7 per second. */
export const TICKS_PER_SECOND = 10_000_000;

/** A player position in seconds as protocol ticks (whole, never negative; NaN and Infinity count as 0). */
export function secondsToTicks(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.round(seconds * TICKS_PER_SECOND);
}

/** Protocol ticks as seconds (a runtime of the catalogue). */
export function ticksToSeconds(ticks: number): number {
  if (!Number.isFinite(ticks) || ticks <= 0) return 0;
  return ticks / TICKS_PER_SECOND;
}
