import { CDN_POOL_SIZE, type CdnMeasurement } from '@svc/contracts';

/** A new best address replaces the primary only when it is this much faster (no flapping between equals). */
export const SWITCH_MARGIN = 1.2;

/** Orders qualifying measurements best first: measured throughput (higher first), then latency. */
export function compareMeasurements(a: CdnMeasurement, b: CdnMeasurement): number {
  const aRate = a.throughputBytesPerSecond;
  const bRate = b.throughputBytesPerSecond;
  if (aRate !== null && bRate !== null && aRate !== bRate) return bRate - aRate;
  if (aRate !== null && bRate === null) return -1;
  if (aRate === null && bRate !== null) return 1;
  return (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity);
}

/**
 * The preferred pool of a host: the qualifying (answering) addresses, the manually preferred ones first in
 * their given order, then the rest best first; at most CDN_POOL_SIZE.
 */
export function preferredPool(measurements: CdnMeasurement[], manualPreferred: string[]): CdnMeasurement[] {
  const qualifying = measurements.filter((measurement) => measurement.ok);
  const manual = manualPreferred
    .map((ip) => qualifying.find((measurement) => measurement.ip === ip))
    .filter((measurement): measurement is CdnMeasurement => measurement !== undefined);
  const others = qualifying.filter((measurement) => !manualPreferred.includes(measurement.ip));
  return [...manual, ...others.sort(compareMeasurements)].slice(0, CDN_POOL_SIZE);
}

/**
 * The address new connections should use: a qualifying manually preferred one when there is one, else the
 * pool's best, unless the current primary still qualifies and the best is not clearly better.
 */
export function choosePrimary(
  pool: CdnMeasurement[],
  current: string | null,
  manualPreferred: string[],
): string | null {
  const best = pool[0];
  if (!best) return null;
  if (manualPreferred.includes(best.ip)) return best.ip;
  const kept = pool.find((measurement) => measurement.ip === current);
  if (!kept) return best.ip;
  const bestRate = best.throughputBytesPerSecond;
  const keptRate = kept.throughputBytesPerSecond;
  if (bestRate !== null && keptRate !== null) {
    return bestRate > keptRate * SWITCH_MARGIN ? best.ip : kept.ip;
  }
  return compareMeasurements(best, kept) < 0 &&
    (best.latencyMs ?? Infinity) * SWITCH_MARGIN < (kept.latencyMs ?? Infinity)
    ? best.ip
    : kept.ip;
}
