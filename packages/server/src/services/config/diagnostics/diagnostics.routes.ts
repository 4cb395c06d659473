import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { sendStreamProbe } from '../../../platform/http/proxy-probe.js';

/** The console entrance's proxy probe (docs/reverse-proxy.md): an event stream with a pause in it. */
export function registerDiagnosticsRoutes(app: AppServer): void {
  serve(app, endpoints.diagnostics.streamProbe, async (request, reply) => {
    sendStreamProbe(reply, request.query.holdMs);
    return reply;
  });
}
