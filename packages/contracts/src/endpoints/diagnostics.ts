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

/** One line of the doctor (`svc doctor` and the console's Diagnostics page). */
export const diagnosticCheckSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['ok', 'problem', 'skipped']),
  detail: z.string(),
  fix: z.string().optional(),
});
export type DiagnosticCheck = z.infer<typeof diagnosticCheckSchema>;

export const diagnosticsQuerySchema = z.object({
  /** The proxied playback address, to check that the played URLs carry it. */
  playbackUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export const diagnosticsResponseSchema = z.object({ checks: z.array(diagnosticCheckSchema) });

const domainSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.-]+$/);

export const proxySnippetQuerySchema = z.object({
  server: z.enum(['nginx', 'caddy']),
  /** The console's domain (the console sends the one it is reached with). */
  consoleName: domainSchema,
  topology: z.enum(['standalone', 'distributed']).default('standalone'),
  /** Distributed: the play-agent node the playback site forwards to. */
  playAgentHost: domainSchema.optional(),
});
export const proxySnippetResponseSchema = z.object({ server: z.enum(['nginx', 'caddy']), text: z.string() });

const NODE_ADMIN = { gateway: { kind: 'admin', anyOf: ['node'] } } as const;

/** The console entrance's probe and the console's diagnostics (config service, through the gateway). */
export const diagnosticsEndpoints = declareEndpoints('config', {
  getDiagnostics: {
    method: 'GET',
    path: '/api/config/diagnostics',
    summary:
      'The doctor checks the node records answer (manual addresses, PENDING nodes, ports, external address)',
    tag: 'Diagnostics',
    auth: NODE_ADMIN,
    query: diagnosticsQuerySchema,
    response: diagnosticsResponseSchema,
    errors: ['VALIDATION_FAILED'],
  },
  getProxySnippet: {
    method: 'GET',
    path: '/api/config/nodes/{nodeId}/proxy-snippet',
    summary: 'The console and playback proxy sites of a manual address, with its endpoint token',
    tag: 'Diagnostics',
    auth: NODE_ADMIN,
    params: z.object({ nodeId: z.string().min(1).max(100) }),
    query: proxySnippetQuerySchema,
    response: proxySnippetResponseSchema,
    errors: ['NOT_FOUND', 'BAD_REQUEST', 'VALIDATION_FAILED'],
  },
  streamProbe: {
    method: 'GET',
    path: '/api/config/diagnostics/stream-probe',
    summary: 'Event stream that sends one event, pauses holdMs, then a second one and ends',
    tag: 'Diagnostics',
    auth: NODE_ADMIN,
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
