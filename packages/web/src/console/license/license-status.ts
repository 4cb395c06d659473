import type { LicenseStatusResponse, LicenseStateName } from '@svc/contracts';

/** Badge colour of a licence state. */
export function licenseStateColor(state: LicenseStateName): string {
  switch (state) {
    case 'ACTIVE':
      return 'green';
    case 'GRACE':
      return 'orange';
    case 'EXPIRED':
    case 'INVALID':
      return 'red';
    case 'NONE':
      return 'gray';
  }
}

const KNOWN_REASONS = new Set(['signature', 'payload', 'no-public-key', 'install-mismatch', 'not-yet-valid']);

/** Message key of an INVALID licence's reason; null for none or one this page does not know (shown as is). */
export function reasonKey(reason: string | null): string | null {
  return reason !== null && KNOWN_REASONS.has(reason) ? `reason.${reason}` : null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from `now` until an instant, rounded up (0 on the last day, negative once past); null without one. */
export function daysUntil(instant: string | null, now: Date): number | null {
  if (instant === null) return null;
  const time = new Date(instant).getTime();
  if (Number.isNaN(time)) return null;
  return Math.ceil((time - now.getTime()) / DAY_MS);
}

/**
 * What the validity line says: the days left of an ACTIVE licence (until its end) or of a GRACE one
 * (until the grace ends); nothing for the other states.
 */
export function validityNote(
  status: Pick<LicenseStatusResponse, 'status' | 'validUntil' | 'graceUntil'>,
  now: Date,
): { key: 'validity.activeDays' | 'validity.graceDays'; days: number } | null {
  if (status.status === 'ACTIVE') {
    const days = daysUntil(status.validUntil, now);
    return days === null ? null : { key: 'validity.activeDays', days: Math.max(0, days) };
  }
  if (status.status === 'GRACE') {
    const days = daysUntil(status.graceUntil, now);
    return days === null ? null : { key: 'validity.graceDays', days: Math.max(0, days) };
  }
  return null;
}

/** Whether the edition upgrade can be asked for, and if not, why (the server's order of refusals). */
export type UpgradeAvailability = 'available' | 'distributed' | 'no-key' | 'no-licence';

export function upgradeAvailability(
  status: Pick<LicenseStatusResponse, 'edition' | 'publicKeyConfigured' | 'activated' | 'licenseId'>,
): UpgradeAvailability {
  if (status.edition === 'DISTRIBUTED') return 'distributed';
  if (!status.publicKeyConfigured) return 'no-key';
  if (!status.activated || status.licenseId === null) return 'no-licence';
  return 'available';
}

/** Share of the slots in use, 0–100 (a licence with no slots and nodes in use reads full). */
export function slotPercent(used: number, max: number): number {
  if (max <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / max) * 100));
}
