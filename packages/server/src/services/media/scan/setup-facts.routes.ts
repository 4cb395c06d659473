import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { ScansRepository } from './scans.repository.js';

/** The media service's part of the dashboard's first-run checklist (config service, service token only). */
export function registerSetupFactsRoutes(app: AppServer, scans: Pick<ScansRepository, 'setupCounts'>): void {
  serve(app, endpoints.media.getSetupFacts, async () => scans.setupCounts());
}
