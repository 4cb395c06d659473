import { z } from 'zod';

// Cloud-drive mounts and accounts (docs/drives.md). A drive mount names a drive account (its address,
// credentials and User-Agent) and the folder of the drive that is the mount root; a mount may instead carry
// the account settings itself (the full provider config below).

/** Sent when an account sets no User-Agent of its own: drives tend to bind links to a browser's. */
export const DEFAULT_DRIVE_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

const driveUrlSchema = z.url({ protocol: /^https?$/ }).max(2048);
/** A folder of the drive, `/`-separated, starting with `/`. */
const driveRootSchema = z
  .string()
  .max(4096)
  .regex(/^\/(?:[^/]+(?:\/[^/]+)*)?$/, 'an absolute drive folder such as / or /Movies')
  .refine((value) => !value.includes('\u0000'), 'no NUL characters');
const userAgentSchema = z
  .string()
  .max(512)
  .regex(/^[\x20-\x7e]*$/, 'printable ASCII only');

/** DRIVE_A: an OpenList/Alist-style API (`POST /api/fs/list`, `POST /api/fs/get` → signed `raw_url`). */
export const driveAProviderConfigSchema = z.strictObject({
  /** Base URL of the drive's API, http or https. */
  url: driveUrlSchema,
  /** The account's API token (sent as `Authorization`). A secret: stored encrypted, answered masked. */
  token: z.string().min(1).max(4096),
  root: driveRootSchema.default('/'),
  /** Folder password of the drive, when the root is protected. A secret. */
  folderPassword: z.string().max(1024).optional(),
  /** User-Agent of every request and link of this account; empty = the built-in browser one. */
  userAgent: userAgentSchema.optional(),
  /** Allow loopback and private addresses for the API (a drive on the LAN); administrators only. */
  allowPrivateNetwork: z.boolean().default(false),
  timeoutSeconds: z.number().int().min(1).max(600).default(30),
});
export type DriveAProviderConfig = z.infer<typeof driveAProviderConfigSchema>;

/**
 * DRIVE_B: an API that lists folders by file id and a CDN host that serves
 * `https://<cdnHost>/download/<fileId>?access_token=<token>`, a link this node assembles itself.
 */
export const driveBProviderConfigSchema = z.strictObject({
  /** Base URL of the drive's API, http or https. */
  url: driveUrlSchema,
  /** Host (and optional port) of the download CDN. */
  cdnHost: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$/, 'a host name, optionally with :port'),
  /** Scheme of the CDN links: https except for a test or LAN CDN. */
  cdnScheme: z.enum(['https', 'http']).default('https'),
  /** The account's access token (Bearer). A secret: stored encrypted, answered masked. */
  accessToken: z.string().min(1).max(4096),
  /** File id of the folder that is the mount root (`root` = the drive's top folder). */
  rootId: z.string().min(1).max(256).default('root'),
  userAgent: userAgentSchema.optional(),
  allowPrivateNetwork: z.boolean().default(false),
  timeoutSeconds: z.number().int().min(1).max(600).default(30),
});
export type DriveBProviderConfig = z.infer<typeof driveBProviderConfigSchema>;

// --- Drive accounts (docs/drives.md "Drive accounts") ------------------------------------------------------
// An account holds a drive's address, credentials and User-Agent; a mount of kind drive_a / drive_b names an
// account and adds the drive folder that is its root. Several mounts may share one account.

export const driveKindSchema = z.enum(['drive_a', 'drive_b']);
export type DriveKind = z.infer<typeof driveKindSchema>;

/** The account part of a DRIVE_A config: everything but the mount root. */
export const driveAAccountConfigSchema = driveAProviderConfigSchema.omit({ root: true });
/** The account part of a DRIVE_B config: everything but the root folder id. */
export const driveBAccountConfigSchema = driveBProviderConfigSchema.omit({ rootId: true });

const driveAccountNameSchema = z.string().trim().min(1).max(128);

export const createDriveAccountRequestSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    name: driveAccountNameSchema,
    kind: z.literal('drive_a'),
    config: driveAAccountConfigSchema,
  }),
  z.strictObject({
    name: driveAccountNameSchema,
    kind: z.literal('drive_b'),
    config: driveBAccountConfigSchema,
  }),
]);
export type CreateDriveAccountRequest = z.infer<typeof createDriveAccountRequestSchema>;

/** PATCH body: a new name and/or a complete new config (secrets sent back masked keep their stored value). */
export const updateDriveAccountRequestSchema = z.strictObject({
  name: driveAccountNameSchema.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type UpdateDriveAccountRequest = z.infer<typeof updateDriveAccountRequestSchema>;

export const driveAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: driveKindSchema,
  /** The config with its secrets replaced by MASKED_SECRET: a stored secret is never answered again. */
  config: z.record(z.string(), z.unknown()),
  /** Mounts that use the account (an account in use cannot be deleted). */
  mountCount: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type DriveAccount = z.infer<typeof driveAccountSchema>;
export const driveAccountListSchema = z.object({ accounts: z.array(driveAccountSchema) });
export const driveAccountIdParamsSchema = z.object({ accountId: z.uuid() });

/** A DRIVE_A mount that uses a drive account: the account and the drive folder that is the mount root. */
export const driveAAccountMountConfigSchema = z.strictObject({
  accountId: z.uuid(),
  root: driveRootSchema.default('/'),
});
/** A DRIVE_B mount that uses a drive account: the account and the file id of the root folder. */
export const driveBAccountMountConfigSchema = z.strictObject({
  accountId: z.uuid(),
  rootId: z.string().min(1).max(256).default('root'),
});

/** Header a play-agent fixes the User-Agent of a link request with (PLAY_AGENT_DRIVE_A_REDIRECT_USER_AGENT). */
export const DRIVE_USER_AGENT_HEADER = 'x-svc-drive-user-agent';

/**
 * GET /api/storage/internal/mounts/{mountId}/link?path=: a play-agent's request for a direct link. The
 * User-Agent the link is asked with may be fixed by the play-agent (X-SVC-Drive-User-Agent).
 */
export const directLinkResponseSchema = z.object({
  /** The mount's provider kind (the provider code of the link cache key). */
  provider: z.string(),
  /** The drive account the link belongs to (the account id, or the mount id for a self-contained mount). */
  accountId: z.string(),
  url: z.string(),
  /** When the link stops working (ISO 8601), null for links without an expiry. */
  expiresAt: z.string().nullable(),
  /** Headers the client must send with the link (the User-Agent it was issued for). */
  headers: z.record(z.string(), z.string()),
});
export type DirectLinkResponse = z.infer<typeof directLinkResponseSchema>;
