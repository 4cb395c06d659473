import { z } from 'zod';

/**
 * Menu permission keys. The eight delegable keys can be granted to a user in user management;
 * `reports` and `license` exist in the decision table but only administrators hold them.
 */
export const DELEGABLE_PERMISSIONS = [
  'dashboard',
  'user',
  'node',
  'library',
  'storage',
  'cache',
  'settings',
  'audit',
] as const;
export const NON_DELEGABLE_PERMISSIONS = ['reports', 'license'] as const;
export const ALL_PERMISSIONS = [...DELEGABLE_PERMISSIONS, ...NON_DELEGABLE_PERMISSIONS] as const;

export const delegablePermissionSchema = z.enum(DELEGABLE_PERMISSIONS);
export const permissionSchema = z.enum(ALL_PERMISSIONS);
export type DelegablePermission = z.infer<typeof delegablePermissionSchema>;
export type Permission = z.infer<typeof permissionSchema>;

export const accountRoleSchema = z.enum(['admin', 'user']);
export type AccountRole = z.infer<typeof accountRoleSchema>;

/**
 * Kinds of bearer credentials a signed-in account holds: `admin` and `access` from the console and portal
 * sign-in, `playback` from a playback client signing in through a play-agent (never accepted by the gateway).
 */
export const tokenKindSchema = z.enum(['admin', 'access', 'playback']);
export type TokenKind = z.infer<typeof tokenKindSchema>;

/**
 * Who is calling, as established by the gateway from a token and passed to the services
 * (header X-SVC-Identity, base64url JSON, trusted only together with the service token).
 */
export const identitySchema = z.object({
  userId: z.string(),
  username: z.string(),
  role: accountRoleSchema,
  /** Effective permissions: every key for administrators. */
  permissions: z.array(permissionSchema),
  tokenKind: tokenKindSchema,
  tokenId: z.string(),
  /** Client address as the gateway determined it (socket or trusted X-Forwarded-For). */
  clientIp: z.string(),
});
export type Identity = z.infer<typeof identitySchema>;

/** Answer of the user service's token introspection (service token only). */
export const introspectRequestSchema = z.object({ token: z.string().min(1).max(512), kind: tokenKindSchema });
export const introspectResponseSchema = z.discriminatedUnion('active', [
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    userId: z.string(),
    username: z.string(),
    role: accountRoleSchema,
    permissions: z.array(permissionSchema),
    tokenId: z.string(),
    expiresAt: z.string(),
    /**
     * Playback tokens: the client and device the player named when it signed in. Requests that carry only
     * the token (a stream URL with `api_key`) are attributed to them.
     */
    device: z
      .object({ client: z.string(), deviceName: z.string(), deviceId: z.string(), version: z.string() })
      .optional(),
  }),
]);
export type IntrospectResponse = z.infer<typeof introspectResponseSchema>;
