import { z } from 'zod';
import { externalAddressSchema, nodeServiceTypeSchema, nodeStatusSchema } from './nodes-api.js';
import { activityMediaTypeSchema } from './playback-api.js';
import { registeredServiceSchema } from './registry.js';

// The console's dashboard (menu permission `dashboard`): what is playing now, and how the install is doing.

// --- Active playback sessions (user service, from the activity log) --------------------------------------

/**
 * A play session counts as active while its latest event is a `start` or `progress` that occurred at most
 * this long ago and the session has no `stop` (docs/activity-log.md). Play-agents report progress far more
 * often, so a session that stops reporting (a player that vanished without a stop) drops out after this.
 */
export const ACTIVE_SESSION_WINDOW_MS = 5 * 60 * 1000;
/** At most this many sessions are listed; `total` counts them all. */
export const ACTIVE_SESSIONS_LIMIT = 200;

/** One active play session: its latest event, plus when it started and the bytes it has cost so far. */
export const activeSessionSchema = z.object({
  sessionId: z.string(),
  userId: z.string(),
  /** The user name as the latest event recorded it. */
  username: z.string(),
  mediaId: z.string(),
  mediaName: z.string(),
  seriesName: z.string().nullable(),
  mediaType: activityMediaTypeSchema,
  client: z.string(),
  deviceName: z.string(),
  clientIp: z.string(),
  /** The play-agent node serving it. */
  nodeId: z.string(),
  /** DirectPlay, DirectStream or Redirect. */
  playMethod: z.string(),
  positionSec: z.number().nullable(),
  runtimeSec: z.number().nullable(),
  /** The session's earliest event. */
  startedAt: z.string(),
  /** The session's latest event. */
  lastSeenAt: z.string(),
  /** Bytes sent to the player over the whole session (0 for redirected playback). */
  bytes: z.number(),
});
export type ActiveSession = z.infer<typeof activeSessionSchema>;

/** GET /api/auth/admin/dashboard/sessions: newest session first (by startedAt), at most 200; `total` counts all. */
export const dashboardSessionsResponseSchema = z.object({
  sessions: z.array(activeSessionSchema),
  total: z.number().int().min(0),
});
export type DashboardSessionsResponse = z.infer<typeof dashboardSessionsResponseSchema>;

// --- Health of services and nodes (config service) -------------------------------------------------------

/** One registered listener: `up` while its heartbeat is at most 30 s old, else `down` (kept for a day). */
export const instanceHealthSchema = z.object({
  service: registeredServiceSchema,
  instanceId: z.string(),
  /** The worker node it belongs to, if any. */
  nodeId: z.string().nullable(),
  /** The advertised base URL other services use. */
  baseUrl: z.string(),
  status: z.enum(['up', 'down']),
  registeredAt: z.string(),
  lastHeartbeatAt: z.string(),
});
export type InstanceHealth = z.infer<typeof instanceHealthSchema>;

/** One node record with the status the node list shows (PENDING, ONLINE, offline). */
export const nodeHealthSchema = z.object({
  nodeId: z.string(),
  name: z.string(),
  serviceType: nodeServiceTypeSchema,
  scope: z.enum(['EMBEDDED', 'EXTERNAL']),
  status: nodeStatusSchema,
  disabled: z.boolean(),
  /** Worker nodes: last valid heartbeat. Manual addresses: last successful /health probe. */
  lastHeartbeatAt: z.string().nullable(),
  externalAddress: externalAddressSchema.nullable(),
});
export type NodeHealth = z.infer<typeof nodeHealthSchema>;

/** GET /api/config/dashboard/health */
export const dashboardHealthResponseSchema = z.object({
  /** The config service's clock when it answered (the statuses are as of this instant). */
  checkedAt: z.string(),
  /** Instances ordered by service, then instance id. */
  instances: z.array(instanceHealthSchema),
  /** Nodes in the node list's order. */
  nodes: z.array(nodeHealthSchema),
  counts: z.object({
    instances: z.object({ up: z.number().int(), down: z.number().int() }),
    nodes: z.object({
      PENDING: z.number().int(),
      ONLINE: z.number().int(),
      offline: z.number().int(),
      AWAITING_INSTALL: z.number().int(),
    }),
  }),
});
export type DashboardHealthResponse = z.infer<typeof dashboardHealthResponseSchema>;

// --- What is left to do before users can play (config service, asking the others) ----------------------

/**
 * The first-run checklist, in the order an administrator does it: a storage mount, a library over it, a
 * finished scan of a library, an online play-agent (every online play-agent has an address users receive),
 * and an account that is no administrator.
 */
export const SETUP_STEPS = ['storage', 'library', 'scan', 'playback', 'users'] as const;
export const setupStepSchema = z.enum(SETUP_STEPS);
export type SetupStep = z.infer<typeof setupStepSchema>;

/** `unknown`: the service that knows did not answer (the step is neither shown done nor to do). */
export const setupStepStateSchema = z.enum(['done', 'todo', 'unknown']);
export type SetupStepState = z.infer<typeof setupStepStateSchema>;

/** GET /api/config/dashboard/setup: every step in SETUP_STEPS order; `complete` once all are done. */
export const dashboardSetupResponseSchema = z.object({
  steps: z.array(z.object({ step: setupStepSchema, state: setupStepStateSchema })),
  complete: z.boolean(),
});
export type DashboardSetupResponse = z.infer<typeof dashboardSetupResponseSchema>;

/** GET /api/auth/internal/setup-facts (service token): enabled accounts that are not administrators. */
export const userSetupFactsSchema = z.object({ users: z.number().int().min(0) });
export type UserSetupFacts = z.infer<typeof userSetupFactsSchema>;

/** GET /api/media/internal/setup-facts (service token): libraries, and those with a succeeded scan. */
export const mediaSetupFactsSchema = z.object({
  libraries: z.number().int().min(0),
  scannedLibraries: z.number().int().min(0),
});
export type MediaSetupFacts = z.infer<typeof mediaSetupFactsSchema>;
