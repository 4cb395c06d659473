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
  /** The address or node the line is about, when the check runs once per address. */
  subject: z.string().optional(),
  detail: z.string(),
  fix: z.string().optional(),
});
export type DiagnosticCheck = z.infer<typeof diagnosticCheckSchema>;

/** Pause of the held probes by default: longer than the 60 s read timeout many proxies default to. */
export const DIAGNOSTICS_DEFAULT_HOLD_SECONDS = 65;

export const startDiagnosticsRunBodySchema = z.strictObject({
  /**
   * The console's address as the browser reaches it (its origin). Its host must be the one the request came
   * through; without it the console site's checks are skipped.
   */
  consoleUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Pause of the held probes (buffering, read timeout), 1 to 110 s. */
  holdSeconds: z.number().int().min(1).max(110).default(DIAGNOSTICS_DEFAULT_HOLD_SECONDS),
});
export const diagnosticsRunIdSchema = z.object({ runId: z.uuid() });
export const diagnosticsRunSchema = z.object({
  runId: z.uuid(),
  state: z.enum(['running', 'done']),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Every line of the troubleshooting list, once the run is done (empty while it runs). */
  checks: z.array(diagnosticCheckSchema),
});
export type DiagnosticsRun = z.infer<typeof diagnosticsRunSchema>;

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
  startRun: {
    method: 'POST',
    path: '/api/config/diagnostics/runs',
    summary:
      "Starts the doctor's checks from the application: the manual addresses' and the console's proxy sites, and the node records",
    tag: 'Diagnostics',
    auth: NODE_ADMIN,
    body: startDiagnosticsRunBodySchema,
    response: diagnosticsRunSchema,
    status: 202,
    errors: ['VALIDATION_FAILED'],
  },
  getRun: {
    method: 'GET',
    path: '/api/config/diagnostics/runs/{runId}',
    summary: 'A run of the doctor: running, or done with every check',
    tag: 'Diagnostics',
    auth: NODE_ADMIN,
    params: diagnosticsRunIdSchema,
    response: diagnosticsRunSchema,
    errors: ['NOT_FOUND'],
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
  ticketStreamProbe: {
    method: 'GET',
    path: '/api/config/diagnostics/stream-probe/{ticket}',
    summary:
      'The stream probe for a run of the doctor: the application calls its own console site with a single-use ticket',
    tag: 'Diagnostics',
    // The run's ticket is the credential (the gateway drops admin tokens, so the application has none to send).
    auth: { gateway: { kind: 'public' } },
    params: z.object({ ticket: z.string().regex(/^[A-Za-z0-9_-]{20,100}$/) }),
    query: proxyProbeQuerySchema,
    produces: 'text/event-stream',
    errors: ['NOT_FOUND', 'VALIDATION_FAILED'],
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
