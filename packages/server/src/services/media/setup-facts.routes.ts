import { mediaSetupFactsSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import type { ScansRepository } from './scans.repository.js';

/** The media service's part of the dashboard's first-run checklist (config service, service token only). */
export function registerSetupFactsRoutes(app: AppServer, scans: Pick<ScansRepository, 'setupCounts'>): void {
  app.get(
    '/api/media/internal/setup-facts',
    { config: { auth: { service: true } }, schema: { response: { 200: mediaSetupFactsSchema } } },
    async () => scans.setupCounts(),
  );
}
