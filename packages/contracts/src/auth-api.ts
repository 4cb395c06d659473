import { z } from 'zod';
import { accountRoleSchema, permissionSchema } from './permissions.js';

/** User names: 1–64 letters, digits and `._-@`, trimmed; unique without regard to case. */
export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;
export const usernameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(USERNAME_PATTERN, 'letters, digits and . _ - @ only');

/** A new password: 8–256 characters. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;
export const newPasswordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);

export const displayNameSchema = z.string().trim().max(128);

/** How DRIVE_A media are played for a user: HTTP 302 to the CDN, or proxied through the play-agent. */
export const driveAPlayModeSchema = z.enum(['redirect', 'proxy']);
export type DriveAPlayMode = z.infer<typeof driveAPlayModeSchema>;

/** A signed-in account as its owner sees it (`permissions` are the effective ones: every key for admins). */
export const accountSchema = z.object({
  id: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: accountRoleSchema,
  disabled: z.boolean(),
  permissions: z.array(permissionSchema),
  webPlayback: z.boolean(),
  driveAPlayMode: driveAPlayModeSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Account = z.infer<typeof accountSchema>;

// --- First run -------------------------------------------------------------------------------------------

/** GET /api/auth/setup/status */
export const setupStatusResponseSchema = z.object({ adminExists: z.boolean() });
export type SetupStatusResponse = z.infer<typeof setupStatusResponseSchema>;

/** POST /api/auth/setup/admin (only while no administrator exists) */
export const setupAdminRequestSchema = z.strictObject({
  username: usernameSchema,
  password: newPasswordSchema,
  displayName: displayNameSchema.optional(),
});
export type SetupAdminRequest = z.infer<typeof setupAdminRequestSchema>;
export const setupAdminResponseSchema = z.object({ user: accountSchema });
export type SetupAdminResponse = z.infer<typeof setupAdminResponseSchema>;

// --- Sign-in ---------------------------------------------------------------------------------------------

/** Which web app signs in: the console gets an admin token too, the portal an access token only. */
export const loginClientSchema = z.enum(['console', 'portal']);
export type LoginClient = z.infer<typeof loginClientSchema>;

/** POST /api/auth/login */
export const loginRequestSchema = z.strictObject({
  username: z.string().trim().min(1).max(256),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  client: loginClientSchema,
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const portalLoginResponseSchema = z.object({
  accessToken: z.string(),
  accessTokenExpiresAt: z.string(),
  user: accountSchema,
});
export const consoleLoginResponseSchema = portalLoginResponseSchema.extend({
  adminToken: z.string(),
  adminTokenExpiresAt: z.string(),
});
export const loginResponseSchema = z.union([consoleLoginResponseSchema, portalLoginResponseSchema]);
export type PortalLoginResponse = z.infer<typeof portalLoginResponseSchema>;
export type ConsoleLoginResponse = z.infer<typeof consoleLoginResponseSchema>;
export type LoginResponse = z.infer<typeof loginResponseSchema>;

/** GET /api/auth/me */
export const meResponseSchema = accountSchema;

/** PUT /api/auth/me/password: signs out every session of the account (all its tokens are revoked). */
export const changePasswordRequestSchema = z.strictObject({
  currentPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  newPassword: newPasswordSchema,
});
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;

// --- Branding --------------------------------------------------------------------------------------------

/** GET /api/auth/branding (public, before sign-in) */
export const brandingResponseSchema = z.object({
  systemName: z.string().max(128),
  logoUrl: z.string().nullable(),
});
export type BrandingResponse = z.infer<typeof brandingResponseSchema>;

// --- Revocation events -----------------------------------------------------------------------------------

/** Cache pub/sub channel on which the user service announces revoked tokens (the gateway evicts its cache). */
export const AUTH_REVOKED_CHANNEL = 'auth:revoked';
export const authRevokedMessageSchema = z.union([
  z.object({ tokenIds: z.array(z.string()) }),
  z.object({ userId: z.string() }),
]);
export type AuthRevokedMessage = z.infer<typeof authRevokedMessageSchema>;
