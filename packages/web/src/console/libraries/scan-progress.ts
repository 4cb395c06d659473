import type { LibraryScanResponse, ScanStatus } from '@svc/contracts';

/** A scan is under way while it is queued or running. */
export function isScanActive(scan: Pick<ScanStatus, 'state'> | null | undefined): boolean {
  return scan?.state === 'queued' || scan?.state === 'running';
}

/**
 * How far a scan is, 0–100, or null while that cannot be told (queued, or walking the folders: the number
 * of videos is known only when the walk ends). Processing counts the videos looked at; removing and done
 * are at the end; a finished scan is complete.
 */
export function scanPercent(scan: ScanStatus): number | null {
  if (!isScanActive(scan)) return 100;
  switch (scan.phase) {
    case 'queued':
    case 'walking':
      return null;
    case 'processing':
      return scan.filesTotal > 0 ? Math.min(100, (scan.filesSeen / scan.filesTotal) * 100) : null;
    case 'removing':
    case 'done':
      return 100;
  }
}

export type ScanOutcome = 'active' | 'succeeded' | 'problems' | 'failed' | 'cancelled';

/** The result to show: a scan that succeeded but reports an error (e.g. the provider refused the key) had problems. */
export function scanOutcome(scan: ScanStatus): ScanOutcome {
  if (isScanActive(scan)) return 'active';
  if (scan.state === 'succeeded') return scan.error ? 'problems' : 'succeeded';
  return scan.state === 'failed' ? 'failed' : 'cancelled';
}

export const ACTIVE_POLL_MS = 1000;
export const PENDING_POLL_MS = 5000;

/** Poll every second while a scan runs; more slowly while only queued webhook tasks wait; else not. */
export function scanPollInterval(data: LibraryScanResponse | undefined): number | false {
  if (!data) return ACTIVE_POLL_MS;
  if (isScanActive(data.scan)) return ACTIVE_POLL_MS;
  return data.pendingTasks > 0 ? PENDING_POLL_MS : false;
}

/**
 * Whether a watched scan is over: an answer fetched after the watch began shows no active scan and
 * nothing waiting. (An answer cached from before — the previous, finished scan — must not end the watch.)
 */
export function watchEnded(data: LibraryScanResponse | undefined, fetchedAt: number, since: number): boolean {
  if (!data || fetchedAt < since) return false;
  return !isScanActive(data.scan) && data.pendingTasks === 0;
}

/** The more recent of two scans of a library (the polled one and the one the list shows). */
export function newerScan(
  a: ScanStatus | null | undefined,
  b: ScanStatus | null | undefined,
): ScanStatus | null {
  if (!a) return b ?? null;
  if (!b) return a;
  if (a.id === b.id)
    return Date.parse(a.finishedAt ?? '') >= Date.parse(b.finishedAt ?? '') || isScanActive(b) ? a : b;
  return Date.parse(a.createdAt) >= Date.parse(b.createdAt) ? a : b;
}
