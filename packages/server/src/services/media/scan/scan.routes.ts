import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { recordScanStart } from '../libraries/library-audit.js';
import type { ScanService } from './scan.service.js';

/**
 * Library scans (console permission `library`) and the media service's part of the dashboard's first-run
 * checklist (config service, service token only).
 */
export function registerScanRoutes(app: AppServer, scans: ScanService, audit: AuditClient): void {
  serve(app, endpoints.media.startScan, async (request) => {
    const scan = await scans.start(request.params.id, request.body.mode);
    await recordScanStart(audit, request, scan);
    return scan;
  });
  serve(app, endpoints.media.getScan, async (request) => scans.status(request.params.id));
  serve(app, endpoints.media.getSetupFacts, async () => scans.setupFacts());
}
