import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { StartupProbe } from './startup-probe.js';

/** The node's startup probe routes; the config service forwards the console's calls here. */
export function registerStartupProbeRoutes(app: AppServer, probe: StartupProbe): void {
  serve(app, endpoints.nodeProbe.nodeStartupProbeStatus, async () => probe.status());
  serve(app, endpoints.nodeProbe.nodeRecheckStartupProbe, async () => probe.check());
}
