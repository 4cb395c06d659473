import { z } from 'zod';
import { displayNameSchema, driveAPlayModeSchema, newPasswordSchema, usernameSchema } from './auth-api.js';
import { auditActionSchema } from './audit-actions.js';
import { accountRoleSchema, delegablePermissionSchema } from './permissions.js';

// --- Node access -----------------------------------------------------------------------------------------

/** `node`: a play-agent node (by nodeId); `endpoint`: a manual reverse-proxy address (by its node id). */
export const routeKindSchema = z.enum(['node', 'endpoint']);
export type RouteKind = z.infer<typeof routeKindSchema>;

export const nodeAccessModeSchema = z.enum(['ALL', 'ALLOW_LIST', 'NONE']);
export type NodeAccessMode = z.infer<typeof nodeAccessModeSchema>;

export const nodeAccessEntrySchema = z.strictObject({
  kind: routeKindSchema,
  id: z.string().trim().min(1).max(128),
});
export type NodeAccessEntry = z.infer<typeof nodeAccessEntrySchema>;

const routeKey = (entry: { kind: string; id: string }) => `${entry.kind}:${entry.id}`;

/** Mode and list in one body; entries only under ALLOW_LIST, each route at most once. */
export const nodeAccessSchema = z
  .strictObject({
    mode: nodeAccessModeSchema,
    entries: z.array(nodeAccessEntrySchema).max(1000).default([]),
  })
  .superRefine((value, ctx) => {
    if (value.mode !== 'ALLOW_LIST' && value.entries.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['entries'],
        message: 'entries are allowed only with ALLOW_LIST',
      });
    }
    const seen = new Set<string>();
    value.entries.forEach((entry, index) => {
      if (seen.has(routeKey(entry))) {
        ctx.addIssue({ code: 'custom', path: ['entries', index], message: 'route listed twice' });
      }
      seen.add(routeKey(entry));
    });
  });
export type NodeAccess = z.infer<typeof nodeAccessSchema>;

// --- Library access --------------------------------------------------------------------------------------

/** `ALL`: every library, present and future (Emby's EnableAllFolders); `ALLOW_LIST`: only the listed ones. */
export const libraryAccessModeSchema = z.enum(['ALL', 'ALLOW_LIST']);
export type LibraryAccessMode = z.infer<typeof libraryAccessModeSchema>;

/**
 * The libraries an account may browse and play (PUT /api/auth/admin/users/:id/library-access). Ids of
 * deleted libraries may stay in a stored list: they match nothing. Administrators always see every library.
 */
export const libraryAccessSchema = z
  .strictObject({
    mode: libraryAccessModeSchema,
    libraryIds: z.array(z.uuid()).max(1000).default([]),
  })
  .superRefine((value, ctx) => {
    if (value.mode !== 'ALLOW_LIST' && value.libraryIds.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['libraryIds'],
        message: 'libraryIds are allowed only with ALLOW_LIST',
      });
    }
    if (new Set(value.libraryIds).size !== value.libraryIds.length) {
      ctx.addIssue({ code: 'custom', path: ['libraryIds'], message: 'a library is listed twice' });
    }
  });
export type LibraryAccess = z.infer<typeof libraryAccessSchema>;
/** A library access as answered (never with defaults applied by a parser). */
export const libraryAccessAnswerSchema = z.object({
  mode: libraryAccessModeSchema,
  libraryIds: z.array(z.string()),
});

/** True when the access lets its holder see the library. */
export const libraryAccessAllows = (access: z.infer<typeof libraryAccessAnswerSchema>, libraryId: string) =>
  access.mode === 'ALL' || access.libraryIds.includes(libraryId);

/** system_settings `library-access.default-policy` (absent: mode ALL). GET/PUT /api/auth/admin/library-access-policy. */
export const defaultLibraryAccessPolicySchema = libraryAccessSchema;
export type DefaultLibraryAccessPolicy = LibraryAccess;

// --- Traffic quotas --------------------------------------------------------------------------------------

export const quotaUnitSchema = z.enum(['MB', 'GB']);
export const quotaPeriodSchema = z.enum(['day', 'week', 'month']);
export type QuotaUnit = z.infer<typeof quotaUnitSchema>;
export type QuotaPeriod = z.infer<typeof quotaPeriodSchema>;

/** One quota. `amount` in `unit` (MB = 2^20 bytes, GB = 2^30 bytes) per `period` (Asia/Shanghai calendar). */
export const quotaSchema = z.strictObject({
  enabled: z.boolean(),
  amount: z.number().positive().max(1e9),
  unit: quotaUnitSchema,
  period: quotaPeriodSchema,
});
export type Quota = z.infer<typeof quotaSchema>;

export const routeQuotaSchema = quotaSchema.extend({
  kind: routeKindSchema,
  id: z.string().trim().min(1).max(128),
});
export type RouteQuota = z.infer<typeof routeQuotaSchema>;

/** A user's quotas (PUT body) and the default policy for new users: routes not listed are unlimited. */
export const quotasSchema = z
  .strictObject({
    total: quotaSchema.nullable(),
    routes: z.array(routeQuotaSchema).max(1000),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.routes.forEach((route, index) => {
      if (seen.has(routeKey(route))) {
        ctx.addIssue({ code: 'custom', path: ['routes', index], message: 'route listed twice' });
      }
      seen.add(routeKey(route));
    });
  });
export type Quotas = z.infer<typeof quotasSchema>;

/** system_settings `traffic-quota.default-policy` (absent: no quota). */
export const defaultQuotaPolicySchema = quotasSchema;
export type DefaultQuotaPolicy = Quotas;
/** system_settings `node-access.default-policy` (absent: mode ALL). */
export const defaultNodeAccessPolicySchema = nodeAccessSchema;
export type DefaultNodeAccessPolicy = NodeAccess;

/**
 * Advice answered with the default node access policy (the policy is saved anyway):
 * - `NO_PLAY_AGENT_NODE`: an ALLOW_LIST naming no play-agent node; new users will be unable to play;
 * - `NONE_FOR_NEW_USERS`: mode NONE; every new user must be given access one by one.
 */
export const nodeAccessPolicyWarningSchema = z.object({
  code: z.enum(['NO_PLAY_AGENT_NODE', 'NONE_FOR_NEW_USERS']),
  message: z.string(),
});
export type NodeAccessPolicyWarning = z.infer<typeof nodeAccessPolicyWarningSchema>;

/**
 * GET and PUT /api/auth/admin/node-access-policy (admin, `settings`). PUT takes `defaultNodeAccessPolicySchema`
 * (`{ mode, entries }`, both in the one request); both answer the policy in force with its warnings.
 */
export const defaultNodeAccessPolicyResponseSchema = z.object({
  mode: nodeAccessModeSchema,
  entries: z.array(nodeAccessEntrySchema),
  warnings: z.array(nodeAccessPolicyWarningSchema),
});
export type DefaultNodeAccessPolicyResponse = z.infer<typeof defaultNodeAccessPolicyResponseSchema>;

/**
 * GET and PUT /api/auth/admin/traffic-quotas/default-policy (admin, `settings`): the body and the answer are
 * `defaultQuotaPolicySchema` (`{ total, routes }`, like a user's quotas).
 */
export const defaultQuotaPolicyResponseSchema = z.object({
  total: quotaSchema.nullable(),
  routes: z.array(routeQuotaSchema),
});

/** One quota with what was used of it in the current period. */
export const quotaUsageSchema = z.object({
  scope: z.enum(['total', 'route']),
  kind: routeKindSchema.optional(),
  id: z.string().optional(),
  enabled: z.boolean(),
  amount: z.number(),
  unit: quotaUnitSchema,
  period: quotaPeriodSchema,
  limitBytes: z.number(),
  usedBytes: z.number(),
  periodStart: z.string(),
  periodEnd: z.string(),
  exhausted: z.boolean(),
});
export type QuotaUsage = z.infer<typeof quotaUsageSchema>;

/** GET /api/auth/admin/users/:id/usage */
export const userUsageResponseSchema = z.object({ quotas: z.array(quotaUsageSchema) });
export type UserUsageResponse = z.infer<typeof userUsageResponseSchema>;

// --- User management -------------------------------------------------------------------------------------

export const userIdParamsSchema = z.object({ id: z.uuid() });

/** A user as user management sees it: `permissions` are the granted (delegable) keys. */
export const managedUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: accountRoleSchema,
  disabled: z.boolean(),
  permissions: z.array(delegablePermissionSchema),
  webPlayback: z.boolean(),
  driveAPlayMode: driveAPlayModeSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ManagedUser = z.infer<typeof managedUserSchema>;

/** GET /api/auth/admin/users/:id */
export const userDetailSchema = managedUserSchema.extend({
  nodeAccess: z.object({ mode: nodeAccessModeSchema, entries: z.array(nodeAccessEntrySchema) }),
  libraryAccess: libraryAccessAnswerSchema,
  quotas: z.object({ total: quotaSchema.nullable(), routes: z.array(routeQuotaSchema) }),
});
export type UserDetail = z.infer<typeof userDetailSchema>;

const pageSchema = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pageSizeSchema = z.coerce.number().int().min(1).max(100).default(20);

/** GET /api/auth/admin/users?page&pageSize&search */
export const listUsersQuerySchema = z.strictObject({
  page: pageSchema,
  pageSize: pageSizeSchema,
  search: z.string().trim().max(128).optional(),
});
export type ListUsersQuery = z.infer<typeof listUsersQuerySchema>;
export const listUsersResponseSchema = z.object({
  items: z.array(managedUserSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ListUsersResponse = z.infer<typeof listUsersResponseSchema>;

/** POST /api/auth/admin/users (node access and quotas are copied from the defaults in force) */
export const createUserRequestSchema = z.strictObject({
  username: usernameSchema,
  password: newPasswordSchema,
  displayName: displayNameSchema.optional(),
  role: accountRoleSchema.optional(),
  permissions: z.array(delegablePermissionSchema).max(50).optional(),
  webPlayback: z.boolean().optional(),
  driveAPlayMode: driveAPlayModeSchema.optional(),
});
export type CreateUserRequest = z.infer<typeof createUserRequestSchema>;

/** PATCH /api/auth/admin/users/:id (a new password or `disabled: true` revokes every token of the user) */
export const updateUserRequestSchema = z
  .strictObject({
    displayName: displayNameSchema.optional(),
    password: newPasswordSchema.optional(),
    disabled: z.boolean().optional(),
    webPlayback: z.boolean().optional(),
    driveAPlayMode: driveAPlayModeSchema.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), {
    message: 'nothing to change',
  });
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;

/** PUT /api/auth/admin/users/:id/permissions (delegable keys only) */
export const setPermissionsRequestSchema = z.strictObject({
  permissions: z.array(delegablePermissionSchema).max(50),
});
export type SetPermissionsRequest = z.infer<typeof setPermissionsRequestSchema>;

// --- Audit log -------------------------------------------------------------------------------------------

export const auditRecordSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  clientIp: z.string().nullable(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

/** GET /api/auth/admin/audit-log?page&pageSize&action&actorId&from&to (newest first) */
export const auditLogQuerySchema = z.strictObject({
  page: pageSchema,
  pageSize: pageSizeSchema,
  action: auditActionSchema.optional(),
  actorId: z.uuid().optional(),
  /** The actor's user name (for sign-in failures: the name tried), without regard to case. */
  actor: z.string().trim().min(1).max(256).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type AuditLogQuery = z.infer<typeof auditLogQuerySchema>;
export const auditLogResponseSchema = z.object({
  items: z.array(auditRecordSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type AuditLogResponse = z.infer<typeof auditLogResponseSchema>;

// --- Service-to-service ----------------------------------------------------------------------------------

/** POST /api/auth/internal/audit: another service records an administrative change. */
export const recordAuditRequestSchema = z.strictObject({
  /** From the X-SVC-Identity the calling service received; null for changes made by the system. */
  actor: z.object({ userId: z.string().max(64), username: z.string().max(256) }).nullable(),
  action: auditActionSchema,
  targetType: z.string().max(64).nullable().default(null),
  targetId: z.string().max(256).nullable().default(null),
  details: z.record(z.string(), z.unknown()).default({}),
  clientIp: z.string().max(64).nullable().default(null),
});
export type RecordAuditRequest = z.input<typeof recordAuditRequestSchema>;

/** POST /api/auth/internal/usage: bytes a play-agent served to a user. */
export const usageReportRequestSchema = z.strictObject({
  userId: z.uuid(),
  nodeId: z.string().min(1).max(128),
  /** Set when the request entered through a manual reverse-proxy address (X-SVC-Endpoint-Token). */
  endpointId: z.string().min(1).max(128).optional(),
  bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
export type UsageReportRequest = z.infer<typeof usageReportRequestSchema>;

/** An enforced quota as the play-agent needs it. */
export const playbackQuotaSchema = z.object({
  scope: z.enum(['total', 'route']),
  kind: routeKindSchema.optional(),
  id: z.string().optional(),
  limitBytes: z.number(),
  usedBytes: z.number(),
  periodEnd: z.string(),
  exhausted: z.boolean(),
});

/** GET /api/auth/internal/users/:id/playback-policy */
export const playbackPolicyResponseSchema = z.object({
  disabled: z.boolean(),
  webPlayback: z.boolean(),
  driveAPlayMode: driveAPlayModeSchema,
  nodeAccess: z.object({ mode: nodeAccessModeSchema, entries: z.array(nodeAccessEntrySchema) }),
  /** The libraries in effect: ALL for administrators, whatever is stored. */
  libraryAccess: libraryAccessAnswerSchema,
  quotas: z.array(playbackQuotaSchema),
});
export type PlaybackPolicyResponse = z.infer<typeof playbackPolicyResponseSchema>;
