import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { AppError } from '../../../platform/http/errors.js';
import { sendStreamProbe } from '../../../platform/http/proxy-probe.js';
import { forwardedEntranceHost } from '../../../platform/http/request-origin.js';
import type { DiagnosticsRuns } from './diagnostics-runs.js';
import type { DiagnosticsService } from './diagnostics.service.js';

/**
 * The console's diagnostics runs and a manual address's proxy sites (node permission), and the console
 * entrance's proxy probe: an event stream with a pause in it, opened with an admin token (`svc doctor`)
 * or with a run's single-use ticket (the application's own call through the console site).
 */
export function registerDiagnosticsRoutes(
  app: AppServer,
  services: { diagnostics: DiagnosticsService; runs: DiagnosticsRuns },
  audit: AuditClient,
): void {
  const { diagnostics, runs } = services;
  serve(app, endpoints.diagnostics.streamProbe, async (request, reply) => {
    sendStreamProbe(reply, request.query.holdMs);
    return reply;
  });
  serve(app, endpoints.diagnostics.ticketStreamProbe, async (request, reply) => {
    if (!(await runs.takeTicket(request.params.ticket)))
      throw new AppError(404, 'NOT_FOUND', 'no diagnostics run is waiting for this probe');
    sendStreamProbe(reply, request.query.holdMs);
    return reply;
  });
  serve(app, endpoints.diagnostics.startRun, async (request) =>
    runs.start({
      actor: request.identity!,
      consoleUrl: request.body.consoleUrl,
      entranceHost: forwardedEntranceHost(request),
      holdSeconds: request.body.holdSeconds,
    }),
  );
  serve(app, endpoints.diagnostics.getRun, async (request) => runs.get(request.params.runId));
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
