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

export const licenseStatusResponseSchema = z.object({
  /** NONE before any licence has been activated. */
  status: z.enum(['NONE', 'ACTIVE', 'GRACE', 'EXPIRED', 'INVALID']),
  activated: z.boolean(),
  edition: editionSchema,
  maxStorageNodes: z.number().int().nonnegative(),
  maxPlayAgentNodes: z.number().int().nonnegative(),
  validUntil: z.string().nullable(),
  graceUntil: z.string().nullable(),
});
export type LicenseStatusResponse = z.infer<typeof licenseStatusResponseSchema>;
