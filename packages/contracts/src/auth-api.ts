import { z } from 'zod';
import { accountRoleSchema, permissionSchema } from './permissions.js';
import { imageContentTypeSchema } from './uploads-api.js';

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
  /** The global web playback switch (default on); each user's own `webPlayback` switch applies as well. */
  webPlayerEnabled: z.boolean(),
});
export type BrandingResponse = z.infer<typeof brandingResponseSchema>;

/** PUT /api/auth/admin/branding/web-player (admin, `settings`): turns web playback on or off for everyone. */
export const setWebPlayerRequestSchema = z.strictObject({ enabled: z.boolean() });
export type SetWebPlayerRequest = z.infer<typeof setWebPlayerRequestSchema>;
/** The answer of PUT /api/auth/admin/branding/web-player: the switch as stored now. */
export const webPlayerStateSchema = z.object({ enabled: z.boolean() });
export type WebPlayerState = z.infer<typeof webPlayerStateSchema>;

/** The system name: trimmed, 1–128 characters (UTF-16 code units, as a browser's maxlength counts them). */
export const SYSTEM_NAME_MAX_LENGTH = 128;
export const systemNameSchema = z.string().trim().min(1).max(SYSTEM_NAME_MAX_LENGTH);

/** PUT /api/auth/admin/branding (admin, `settings`) */
export const updateBrandingRequestSchema = z.strictObject({ systemName: systemNameSchema });
export type UpdateBrandingRequest = z.infer<typeof updateBrandingRequestSchema>;

/** A logo given as an address: http or https, at most 2,048 characters, no user name or password in it. */
export const LOGO_URL_MAX_LENGTH = 2048;
export const logoUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(LOGO_URL_MAX_LENGTH)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'http:' || url.protocol === 'https:') &&
          url.hostname !== '' &&
          url.username === '' &&
          url.password === ''
        );
      } catch {
        return false;
      }
    },
    { message: 'an http or https address without credentials' },
  );

/**
 * PUT /api/auth/admin/branding/logo (admin, `settings`): `{ logo: { kind: 'upload', uploadId } }` saves an
 * image uploaded with POST /api/config/uploads/image (it takes effect only now), `{ logo: { kind: 'url', url } }`
 * uses an address, `{ logo: null }` removes the logo (the web app's own favicon shows again).
 */
export const setLogoRequestSchema = z.strictObject({
  logo: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('upload'), uploadId: z.uuid() }),
      z.strictObject({ kind: z.literal('url'), url: logoUrlSchema }),
    ])
    .nullable(),
});
export type SetLogoRequest = z.infer<typeof setLogoRequestSchema>;

/** Where the saved logo comes from: a stored image (served by the public logo route) or an address. */
export const logoSourceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('upload'),
    contentType: imageContentTypeSchema,
    size: z.number().int(),
    sha256: z.string(),
  }),
  z.object({ kind: z.literal('url'), url: z.string() }),
]);
export type LogoSource = z.infer<typeof logoSourceSchema>;

/**
 * GET and PUT /api/auth/admin/branding, PUT /api/auth/admin/branding/logo: the public branding plus where the
 * logo comes from. `logoUrl` is what the web app puts in <img> and the favicon link: for a stored image the
 * public route `/api/auth/branding/logo/<sha256>.<ext>` (cached for a year: the address changes with the image).
 */
export const adminBrandingResponseSchema = brandingResponseSchema.extend({
  logo: logoSourceSchema.nullable(),
});
export type AdminBrandingResponse = z.infer<typeof adminBrandingResponseSchema>;

/** Params of GET /api/auth/branding/logo/:file (public): `<sha256 hex>.<ext>`. */
export const logoFileParamsSchema = z.object({
  file: z.string().regex(/^[0-9a-f]{64}\.(png|jpg|gif|webp|ico)$/),
});

// --- The signed-in account's own view ------------------------------------------------------------------

/**
 * GET /api/auth/me/web-playback: the global switch (`system`), the account's own switch (`user`), and
 * whether the account may play in the browser now (`allowed`: both on).
 */
export const myWebPlaybackResponseSchema = z.object({
  system: z.boolean(),
  user: z.boolean(),
  allowed: z.boolean(),
});
export type MyWebPlaybackResponse = z.infer<typeof myWebPlaybackResponseSchema>;

/*
 * GET /api/auth/me/usage answers `userUsageResponseSchema` (users-api.ts): the caller's own quotas with their
 * use, exactly as an administrator sees them in GET /api/auth/admin/users/:id/usage. It is not re-exported
 * under another name here because users-api.ts imports this module.
 */

// --- Revocation events -----------------------------------------------------------------------------------

/** Cache pub/sub channel on which the user service announces revoked tokens (the gateway evicts its cache). */
export const AUTH_REVOKED_CHANNEL = 'auth:revoked';
export const authRevokedMessageSchema = z.union([
  z.object({ tokenIds: z.array(z.string()) }),
  z.object({ userId: z.string() }),
]);
export type AuthRevokedMessage = z.infer<typeof authRevokedMessageSchema>;
