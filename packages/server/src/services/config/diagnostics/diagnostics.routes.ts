import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { sendStreamProbe } from '../../../platform/http/proxy-probe.js';
import type { DiagnosticsService } from './diagnostics.service.js';

/**
 * The console's diagnostics and a manual address's proxy sites (node permission), and the console
 * entrance's proxy probe: an event stream with a pause in it (docs/reverse-proxy.md).
 */
export function registerDiagnosticsRoutes(
  app: AppServer,
  diagnostics: DiagnosticsService,
  audit: AuditClient,
): void {
  serve(app, endpoints.diagnostics.streamProbe, async (request, reply) => {
    sendStreamProbe(reply, request.query.holdMs);
    return reply;
  });
  serve(app, endpoints.diagnostics.getDiagnostics, async (request) => ({
    checks: await diagnostics.checks(request.query.playbackUrl),
  }));
  // Carries the endpoint token in full: recorded like "show full command".
  serve(app, endpoints.diagnostics.getProxySnippet, async (request, reply) => {
    const snippet = await diagnostics.snippet(request.params.nodeId, request.query);
    await audit.record(request, {
      action: 'node.credentials-reveal',
      target: { type: 'node', id: request.params.nodeId },
    });
    return reply.header('cache-control', 'no-store').send(snippet);
  });
}
