import { z } from 'zod';
import { declareEndpoints } from '../endpoint.js';
import { nodeParamsSchema } from '../nodes-api.js';

/**
 * The startup probe of a play-agent node: whether the probe tool (ffprobe) is there and works. The node
 * checks it at start and on demand; the console reads it through the config service, which forwards to the
 * node (docs/image-cache.md, "Startup probe").
 */
export const startupProbeStatusSchema = z.object({
  nodeId: z.string(),
  tool: z.literal('ffprobe'),
  /** `pending`: no check finished yet; `missing`: not found; `failed`: found but it could not read a sample. */
  result: z.enum(['pending', 'ok', 'missing', 'failed']),
  available: z.boolean(),
  working: z.boolean(),
  version: z.string().nullable(),
  /** When the last check finished (ISO 8601), null before the first. */
  checkedAt: z.string().nullable(),
  durationMs: z.number().int().nonnegative().nullable(),
  /** Why the last check failed, in one line. */
  message: z.string().nullable(),
});
export type StartupProbeStatus = z.infer<typeof startupProbeStatusSchema>;

const CACHE_ADMIN = { gateway: { kind: 'admin', anyOf: ['cache'] } } as const;
const FORWARD_ERRORS = ['NOT_FOUND', 'UPSTREAM_UNAVAILABLE'] as const;

/** The console's routes (config service), forwarded to the node's own. */
const consoleEndpoints = declareEndpoints('config', {
  getStartupProbeStatus: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/proxy/cache/startup-probe/status',
    summary: "A play-agent node's probe tool: present, working, version, last check",
    tag: 'Cache',
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: startupProbeStatusSchema,
    errors: [...FORWARD_ERRORS],
  },
  recheckStartupProbe: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cache/startup-probe/recheck',
    summary: "Runs a play-agent node's startup probe again and answers its result",
    tag: 'Cache',
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: startupProbeStatusSchema,
    errors: [...FORWARD_ERRORS],
  },
});

/** The node's side (service token only). */
const nodeEndpoints = declareEndpoints('play-agent', {
  nodeStartupProbeStatus: {
    method: 'GET',
    path: '/api/node/cache/startup-probe',
    summary: "This node's startup probe status",
    tag: 'Internal',
    auth: { service: true },
    response: startupProbeStatusSchema,
    errors: [],
  },
  nodeRecheckStartupProbe: {
    method: 'POST',
    path: '/api/node/cache/startup-probe/recheck',
    summary: "Runs this node's startup probe again",
    tag: 'Internal',
    auth: { service: true },
    response: startupProbeStatusSchema,
    errors: [],
  },
});

export const nodeProbeEndpoints = { ...consoleEndpoints, ...nodeEndpoints } as const;
