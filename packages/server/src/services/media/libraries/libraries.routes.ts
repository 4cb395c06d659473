import { endpoints, type Library, type ScanStatus } from '@svc/contracts';
import type { AuditClient, AuditSource } from '../../../platform/audit/audit-client.js';
import { settableFields } from '../../../platform/audit/audit-details.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { ItemsService } from '../items/items.service.js';
import type { LibrariesService } from './libraries.service.js';
import type { ScanService } from '../scan/scan.service.js';

/** The fields of a library an administrator sets (not its counts and scans), for the audit log. */
const settable = (library: Library) => settableFields(library, ['name', 'type', 'sources']);

/** Library management, items and scans: console accounts holding the menu permission `library`. */
export function registerLibrariesRoutes(
  app: AppServer,
  services: { libraries: LibrariesService; items: ItemsService; scans: ScanService; audit: AuditClient },
): void {
  const { libraries, items, scans, audit } = services;
  const target = (id: string) => ({ type: 'library', id });
  const recordScanStart = (request: AuditSource, scan: ScanStatus) =>
    audit.record(request, {
      action: 'library.scan-start',
      target: target(scan.libraryId),
      details: { mode: scan.mode, scanId: scan.id },
    });

  serve(app, endpoints.media.listLibraries, async () => libraries.list());
  serve(app, endpoints.media.createLibrary, async (request) => {
    const after = await libraries.create(request.body);
    await audit.record(request, {
      action: 'library.create',
      target: target(after.id),
      before: null,
      after: settable(after),
    });
    if (after.lastScan) await recordScanStart(request, after.lastScan);
    return after;
  });
  serve(app, endpoints.media.getLibrary, async (request) => libraries.get(request.params.id));
  serve(app, endpoints.media.updateLibrary, async (request) =>
    audit.recordChange(
      request,
      { action: 'library.update', target: target(request.params.id), view: settable },
      () => libraries.get(request.params.id),
      () => libraries.update(request.params.id, request.body),
    ),
  );
  serve(app, endpoints.media.deleteLibrary, async (request, reply) => {
    const before = await libraries.get(request.params.id);
    await libraries.delete(request.params.id);
    await audit.record(request, {
      action: 'library.delete',
      target: target(request.params.id),
      before: settable(before),
      after: null,
    });
    return reply.send();
  });
  serve(app, endpoints.media.listLibraryItems, async (request) =>
    items.list(request.params.id, request.query),
  );
  serve(app, endpoints.media.startScan, async (request) => {
    const scan = await scans.start(request.params.id, request.body.mode);
    await recordScanStart(request, scan);
    return scan;
  });
  serve(app, endpoints.media.getScan, async (request) => scans.status(request.params.id));
}
