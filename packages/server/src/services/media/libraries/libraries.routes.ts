import { endpoints, type Library } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import { settableFields } from '../../../platform/audit/audit-details.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { LibrariesService } from './libraries.service.js';
import { libraryTarget as target, recordScanStart } from './library-audit.js';

/** The fields of a library an administrator sets (not its counts and scans), for the audit log. */
const settable = (library: Library) => settableFields(library, ['name', 'type', 'sources']);

/** Library management: console accounts holding the menu permission `library`. */
export function registerLibrariesRoutes(
  app: AppServer,
  libraries: LibrariesService,
  audit: AuditClient,
): void {
  serve(app, endpoints.media.listLibraries, async () => libraries.list());
  serve(app, endpoints.media.createLibrary, async (request) => {
    const after = await libraries.create(request.body);
    await audit.record(request, {
      action: 'library.create',
      target: target(after.id),
      before: null,
      after: settable(after),
    });
    if (after.lastScan) await recordScanStart(audit, request, after.lastScan);
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
}
