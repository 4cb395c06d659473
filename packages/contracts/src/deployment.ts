import { z } from 'zod';

export const editionSchema = z.enum(['STANDALONE', 'DISTRIBUTED']);
export type Edition = z.infer<typeof editionSchema>;

export const deploymentModeSchema = z.enum(['standalone', 'distributed']);
export type DeploymentMode = z.infer<typeof deploymentModeSchema>;

export const capabilitiesResponseSchema = z.object({
  edition: editionSchema,
  deploymentMode: deploymentModeSchema,
  embeddedNodes: z.object({ storage: z.string(), playAgent: z.string() }),
  externalNodes: z.boolean(),
});
export type CapabilitiesResponse = z.infer<typeof capabilitiesResponseSchema>;

export const licenseStateSchema = z.enum(['NONE', 'ACTIVE', 'GRACE', 'EXPIRED', 'INVALID']);
export type LicenseStateName = z.infer<typeof licenseStateSchema>;

/** GET /api/license/status (public), and the answer of activation, refresh and edition upgrade. */
export const licenseStatusResponseSchema = z.object({
  /** NONE before any licence has been activated; derived from the service clock at every read. */
  status: licenseStateSchema,
  /** A licence is stored (it may still be EXPIRED or INVALID). */
  activated: z.boolean(),
  /** The install's edition (deployment state), not the lease's. */
  edition: editionSchema,
  /** Zero unless the status is ACTIVE, GRACE or EXPIRED. */
  maxStorageNodes: z.number().int().nonnegative(),
  maxPlayAgentNodes: z.number().int().nonnegative(),
  validUntil: z.string().nullable(),
  graceUntil: z.string().nullable(),
  licenseId: z.string().nullable(),
  validFrom: z.string().nullable(),
  issuedAt: z.string().nullable(),
  activatedAt: z.string().nullable(),
  /** This install's id: the publisher may bind a lease to it (installId in the lease). */
  installId: z.string(),
  /** SVC_LICENSE_PUBLIC_KEY is set: without it no licence can be activated or verified. */
  publicKeyConfigured: z.boolean(),
  /** Why the status is INVALID (e.g. 'signature', 'no-public-key', 'install-mismatch'); else null. */
  reason: z.string().nullable(),
});
export type LicenseStatusResponse = z.infer<typeof licenseStatusResponseSchema>;

/** POST /api/license/activate: a one-time licence code issued by the publisher (`svc license code`). */
export const activateLicenseRequestSchema = z.strictObject({ code: z.string().trim().min(1).max(8192) });
export type ActivateLicenseRequest = z.infer<typeof activateLicenseRequestSchema>;

/** POST /api/admin/licenses/{id}/edition: a publisher-signed edition-upgrade lease (`svc license upgrade`). */
export const editionUpgradeRequestSchema = z.strictObject({ lease: z.string().trim().min(1).max(8192) });
export type EditionUpgradeRequest = z.infer<typeof editionUpgradeRequestSchema>;

export const licenseIdParamsSchema = z.object({ id: z.string().min(1).max(64) });

// --- Legacy nodes (standalone image only; docs/nodes.md "Legacy nodes") --------------------------------

export const legacyNodeTypeSchema = z.enum(['svc-control-storage', 'svc-play-agent']);
export type LegacyNodeType = z.infer<typeof legacyNodeTypeSchema>;

/** An external worker record left by a legacy multi-container install (no token is ever shown). */
export const legacyNodeSchema = z.object({
  nodeId: z.string(),
  name: z.string(),
  /** PENDING or ONLINE as stored; offline derived on read, as in node management. */
  status: z.enum(['PENDING', 'ONLINE', 'offline']),
  lastHeartbeatAt: z.string().nullable(),
  disabled: z.boolean(),
});
export type LegacyNode = z.infer<typeof legacyNodeSchema>;

/** One worker type in the impact report. */
export const legacyNodeTypeReportSchema = z.object({
  serviceType: legacyNodeTypeSchema,
  /** SVC_EMBEDDED_STORAGE_NODE_ID or SVC_EMBEDDED_PLAY_AGENT_NODE_ID as this service runs with. */
  embeddedNodeId: z.string(),
  /** Every EXTERNAL record of the type, disabled ones included. */
  externalNodes: z.array(legacyNodeSchema),
  /** The ids the promote call accepts for the type: the non-disabled EXTERNAL records. */
  candidates: z.array(z.string()),
  /** Exactly one candidate: promotion needs no choice (the id must still be confirmed). */
  promotable: z.boolean(),
  /** Several candidates: the admin must choose one; the others are disabled at promotion. */
  choiceRequired: z.boolean(),
  /**
   * The embedded id already equals the node that would become the built-in one: true or false with exactly
   * one candidate; null when there is no candidate or a choice is required.
   */
  embeddedIdMatches: z.boolean().nullable(),
  /** What promoting the type would do, in words (only node ids are quoted). */
  effect: z.string(),
});
export type LegacyNodeTypeReport = z.infer<typeof legacyNodeTypeReportSchema>;

/** GET /api/config/deployment/legacy-nodes/report: read-only, nothing is changed. */
export const legacyNodesReportSchema = z.object({
  edition: z.literal('STANDALONE'),
  storage: legacyNodeTypeReportSchema,
  playAgent: legacyNodeTypeReportSchema,
});
export type LegacyNodesReport = z.infer<typeof legacyNodesReportSchema>;

/** POST /api/config/deployment/legacy-nodes/promote: candidate ids confirmed explicitly (at least one). */
export const promoteLegacyNodesRequestSchema = z.strictObject({
  storageNodeId: z.string().trim().min(1).max(64).optional(),
  playAgentNodeId: z.string().trim().min(1).max(64).optional(),
  /** Must be literally true. */
  confirm: z.literal(true),
});
export type PromoteLegacyNodesRequest = z.infer<typeof promoteLegacyNodesRequestSchema>;

/** An environment variable the deployment must set (the service cannot change its own environment). */
export const embeddedIdReminderSchema = z.object({
  variable: z.enum(['SVC_EMBEDDED_STORAGE_NODE_ID', 'SVC_EMBEDDED_PLAY_AGENT_NODE_ID']),
  current: z.string(),
  required: z.string(),
});
export type EmbeddedIdReminder = z.infer<typeof embeddedIdReminderSchema>;

export const promoteLegacyNodesResponseSchema = z.object({
  /** The records now EMBEDDED (ids kept). */
  promoted: z.array(z.object({ serviceType: legacyNodeTypeSchema, nodeId: z.string() })),
  /** The other EXTERNAL records of a promoted type, now disabled (records kept). */
  disabled: z.array(z.object({ serviceType: legacyNodeTypeSchema, nodeId: z.string() })),
  /** Variables to set where a promoted id differs from the current embedded id; empty when none. */
  environment: z.array(embeddedIdReminderSchema),
  /** The same reminder in words; null when nothing needs to change. */
  reminder: z.string().nullable(),
  /** The report after promotion. */
  report: legacyNodesReportSchema,
});
export type PromoteLegacyNodesResponse = z.infer<typeof promoteLegacyNodesResponseSchema>;
