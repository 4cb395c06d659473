import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { CdnPreference } from './cdn-preference.js';

/** The node's CDN routes the config service forwards the console's calls to (service token only). */
export function registerCdnRoutes(app: AppServer, preference: CdnPreference): void {
  const routes = endpoints.playAgentCdn;
  serve(app, routes.getCdnStatus, async () => preference.status());
  serve(app, routes.probeCdn, async (request) => preference.probe(request.body.host));
  serve(app, routes.measureCdnIp, async (request) => preference.measure(request.body.ip, request.body.host));
  serve(app, routes.setCdnManual, async (request) => preference.setManual(request.body));
}
