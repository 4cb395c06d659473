import { ApiError } from '../../api/client.js';

/** Refusals of a node creation that are about the licence or the edition, with what the answer tells. */
export type LicenceRefusal =
  | { kind: 'quota'; serviceType: string | null; used: number | null; max: number | null }
  | { kind: 'edition' }
  | { kind: 'notActive'; state: string | null }
  | { kind: 'unavailable' };

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const stringOrNull = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/** The licence refusal an error of POST /api/config/nodes stands for, or null for any other error. */
export function licenceRefusal(error: unknown): LicenceRefusal | null {
  if (!(error instanceof ApiError)) return null;
  const details = record(error.details);
  switch (error.code) {
    case 'LICENSE_QUOTA_FULL':
      return {
        kind: 'quota',
        serviceType: stringOrNull(details.serviceType),
        used: numberOrNull(details.used),
        max: numberOrNull(details.max),
      };
    case 'EDITION_NOT_DISTRIBUTED':
      return { kind: 'edition' };
    case 'LICENSE_NOT_ACTIVE':
      return { kind: 'notActive', state: stringOrNull(details.state) };
    case 'LICENSE_UNAVAILABLE':
      return { kind: 'unavailable' };
    default:
      return null;
  }
}
