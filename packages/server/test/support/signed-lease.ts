import type { KeyObject } from 'node:crypto';
import { signLease, type LeasePayload } from '../../src/services/config/licenses/lease.js';

/**
 * A lease signed with the publisher's key for a test install: valid from a minute ago for 30 days (grace
 * to 60), three storage and three play-agent nodes.
 */
export function signTestLease(
  privateKey: KeyObject,
  lease: Pick<LeasePayload, 'licenseId' | 'kind' | 'edition'>,
): string {
  const now = Date.now();
  return signLease(
    {
      ...lease,
      maxStorageNodes: 3,
      maxPlayAgentNodes: 3,
      validFrom: new Date(now - 60_000).toISOString(),
      validUntil: new Date(now + 30 * 86_400_000).toISOString(),
      graceUntil: new Date(now + 60 * 86_400_000).toISOString(),
      issuedAt: new Date(now).toISOString(),
    },
    privateKey,
  );
}
