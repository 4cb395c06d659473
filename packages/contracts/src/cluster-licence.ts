import { z } from 'zod';

/*
 * Cluster licence sync (port 18089, DISTRIBUTED control instances only; docs/licences.md "Cluster licence sync").
 * One control instance holds the licence lease: it re-verifies the licence and writes the status every control
 * instance reads. Service token only, private addresses only.
 */

/** Who holds the licence lease, with the database's clock. */
export const clusterLeaseSchema = z.object({
  holder: z.string(),
  /** The holder's 18089 address as the other instances reach it. */
  holderUrl: z.string(),
  /** Raised by one at every change of holder (a fencing number: a former holder's late write is refused). */
  term: z.number().int(),
  acquiredAt: z.string(),
  renewedAt: z.string(),
  expiresAt: z.string(),
});

/** The licence as the holder last verified it. */
export const clusterLicenceFactsSchema = z.object({
  state: z.enum(['NONE', 'ACTIVE', 'GRACE', 'EXPIRED', 'INVALID']),
  edition: z.enum(['STANDALONE', 'DISTRIBUTED']),
  maxStorageNodes: z.number().int(),
  maxPlayAgentNodes: z.number().int(),
  validUntil: z.string().nullable(),
  graceUntil: z.string().nullable(),
  checkedAt: z.string(),
  checkedBy: z.string(),
  term: z.number().int(),
});

export const clusterMemberSchema = z.object({
  instanceId: z.string(),
  url: z.string(),
  lastSeenAt: z.string(),
  /** Seen within one lease time. */
  live: z.boolean(),
});

/** GET /api/config/internal/cluster/licence on 18089: the same answer on every control instance. */
export const clusterLicenceStatusSchema = z.object({
  /** The instance that answered. */
  instanceId: z.string(),
  isHolder: z.boolean(),
  leaseSeconds: z.number().int(),
  /** The database's clock when it answered. */
  now: z.string(),
  /** Null before any instance took the lease, or once it expired with nobody renewing it. */
  lease: clusterLeaseSchema.nullable(),
  licence: clusterLicenceFactsSchema.nullable(),
  members: z.array(clusterMemberSchema),
});
export type ClusterLicenceStatus = z.infer<typeof clusterLicenceStatusSchema>;
export type ClusterLicenceFacts = z.infer<typeof clusterLicenceFactsSchema>;
