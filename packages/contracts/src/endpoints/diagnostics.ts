import { z } from 'zod';
import { declareEndpoints } from '../endpoint.js';

/**
 * Probes `svc doctor` and the console's Diagnostics page send through the reverse proxy
 * (docs/reverse-proxy.md): they answer slowly and in pieces on purpose, so a proxy that buffers,
 * compresses, rewrites Range or cuts long responses shows it.
 */
export const PROXY_PROBE_MAX_HOLD_MS = 120_000;
/** Size of the playback probe's body. */
export const PROXY_PROBE_BYTES = 256 * 1024;
/** Response header of the playback probe: the manual address the request was attributed to. */
export const PROXY_PROBE_ROUTE_HEADER = 'x-svc-endpoint-route';

export const proxyProbeQuerySchema = z.object({
  /** Pause between the first piece of the answer and the rest. */
  holdMs: z.coerce.number().int().min(0).max(PROXY_PROBE_MAX_HOLD_MS).default(0),
});

/** The console entrance's probe: an event stream (config service, through the gateway). */
export const diagnosticsEndpoints = declareEndpoints('config', {
  streamProbe: {
    method: 'GET',
    path: '/api/config/diagnostics/stream-probe',
    summary: 'Event stream that sends one event, pauses holdMs, then a second one and ends',
    tag: 'Diagnostics',
    auth: { gateway: { kind: 'admin', anyOf: ['node'] } },
    query: proxyProbeQuerySchema,
    produces: 'text/event-stream',
    errors: ['VALIDATION_FAILED'],
  },
});

/** The playback entrance's probe (play-agent, reached by players' route, so no sign-in). */
export const playAgentDiagnosticsEndpoints = declareEndpoints('play-agent', {
  proxyProbe: {
    method: 'GET',
    path: '/svc/proxy-probe',
    summary:
      'Fixed bytes with Range support; names the manual address the request came through (X-SVC-Endpoint-Route)',
    tag: 'Play-agent',
    auth: { direct: 'player', access: 'anonymous' },
    query: proxyProbeQuerySchema,
    produces: 'application/octet-stream',
    errors: ['VALIDATION_FAILED'],
  },
});
