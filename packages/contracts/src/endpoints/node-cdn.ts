import { declareEndpoints } from '../endpoint.js';
import {
  cdnHostStatusSchema,
  cdnManualRequestSchema,
  cdnMeasureIpRequestSchema,
  cdnMeasurementSchema,
  cdnProbeRequestSchema,
  cdnStatusSchema,
} from '../cdn-api.js';
import { nodeParamsSchema } from '../nodes-api.js';

/** The console's cache page rights: menu permission `cache` (docs/auth.md). */
const CACHE_ADMIN = { gateway: { kind: 'admin', anyOf: ['cache'] } } as const;
const SERVICE = { service: true } as const;
const TAG = 'Node cache';
/** Forwarded live to the node: it may be down, or not a play-agent. */
const FORWARDED = ['NOT_FOUND', 'NODE_NOT_PLAY_AGENT', 'NODE_UNREACHABLE', 'UPSTREAM_FAILED'] as const;

/**
 * DRIVE_B CDN address preference of a play-agent node (docs/drives.md): the console's routes on the config
 * service, each forwarded to the node's own route below /api/play-agent/internal/cdn/.
 */
export const nodeCdnEndpoints = declareEndpoints('config', {
  getNodeCdnStatus: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/proxy/cdn/status',
    summary: "A play-agent node's DRIVE_B CDN preference: primary address, pool, manual addresses",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    response: cdnStatusSchema,
    errors: [...FORWARDED],
  },
  probeNodeCdn: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cdn/probe',
    summary: 'Resolve and measure the CDN addresses now, and switch to the best',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: cdnProbeRequestSchema,
    response: cdnStatusSchema,
    errors: [...FORWARDED],
  },
  measureNodeCdnIp: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cdn/measure-ip',
    summary: 'Measure one CDN address from the node (latency and throughput)',
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: cdnMeasureIpRequestSchema,
    response: cdnMeasurementSchema,
    errors: [...FORWARDED],
  },
  setNodeCdnManual: {
    method: 'POST',
    path: '/api/config/nodes/{nodeId}/proxy/cdn/manual',
    summary: "Set a CDN host's manually preferred and candidate addresses on the node",
    tag: TAG,
    auth: CACHE_ADMIN,
    params: nodeParamsSchema,
    body: cdnManualRequestSchema,
    response: cdnHostStatusSchema,
    errors: [...FORWARDED],
  },
});

/** The node side: what the config service calls on a play-agent with the service token. */
export const playAgentCdnEndpoints = declareEndpoints('play-agent', {
  getCdnStatus: {
    method: 'GET',
    path: '/api/play-agent/internal/cdn/status',
    summary: "This node's DRIVE_B CDN preference",
    tag: 'Internal',
    auth: SERVICE,
    response: cdnStatusSchema,
    errors: [],
  },
  probeCdn: {
    method: 'POST',
    path: '/api/play-agent/internal/cdn/probe',
    summary: 'Resolve and measure the CDN addresses now',
    tag: 'Internal',
    auth: SERVICE,
    body: cdnProbeRequestSchema,
    response: cdnStatusSchema,
    errors: [],
  },
  measureCdnIp: {
    method: 'POST',
    path: '/api/play-agent/internal/cdn/measure-ip',
    summary: 'Measure one CDN address',
    tag: 'Internal',
    auth: SERVICE,
    body: cdnMeasureIpRequestSchema,
    response: cdnMeasurementSchema,
    errors: ['NOT_FOUND'],
  },
  setCdnManual: {
    method: 'POST',
    path: '/api/play-agent/internal/cdn/manual',
    summary: "Set a CDN host's manual addresses",
    tag: 'Internal',
    auth: SERVICE,
    body: cdnManualRequestSchema,
    response: cdnHostStatusSchema,
    errors: [],
  },
});
