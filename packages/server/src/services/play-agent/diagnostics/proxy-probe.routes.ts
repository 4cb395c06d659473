import { endpoints, PROXY_PROBE_ROUTE_HEADER } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { sendBytesProbe } from '../../../platform/http/proxy-probe.js';
import type { PlaybackGate } from '../access/playback-gate.js';

export const ENDPOINT_TOKEN_HEADER = 'x-svc-endpoint-token';

/**
 * The playback entrance's proxy probe (docs/reverse-proxy.md): Range-capable fixed bytes with a pause,
 * and which manual address the request was attributed to: its node id, `direct` (no endpoint token) or
 * `unknown` (a token that names no enabled address: missing from the proxy, or stale after regeneration).
 * It names only the address's id, never a token.
 */
export function registerProxyProbeRoutes(app: AppServer, gate: Pick<PlaybackGate, 'endpointOf'>): void {
  serve(app, endpoints.playAgentDiagnostics.proxyProbe, async (request, reply) => {
    const header = request.headers[ENDPOINT_TOKEN_HEADER];
    const token = typeof header === 'string' && header !== '' ? header : undefined;
    const route = token === undefined ? 'direct' : ((await gate.endpointOf(token)) ?? 'unknown');
    sendBytesProbe(reply, {
      holdMs: request.query.holdMs,
      range: request.headers.range,
      headers: { [PROXY_PROBE_ROUTE_HEADER]: route },
    });
    return reply;
  });
}
