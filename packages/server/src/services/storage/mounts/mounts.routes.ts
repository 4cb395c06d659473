import { endpoints, type Mount } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import { settableFields } from '../../../platform/audit/audit-details.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { MountsService } from '../mounts.service.js';

/** The fields of a mount an administrator sets (secrets are answered masked), for the audit log. */
const settable = (mount: Mount) => settableFields(mount, ['name', 'provider', 'config']);

/** Mount records: /api/storage/providers and /api/storage/mounts[/:mountId[/check]]. */
export function registerMountRoutes(app: AppServer, mounts: MountsService, audit: AuditClient): void {
  const target = (id: string) => ({ type: 'mount', id });
  serve(app, endpoints.storage.listProviders, async () => ({ providers: mounts.providers() }));
  serve(app, endpoints.storage.listMounts, async () => ({ mounts: await mounts.list() }));
  serve(app, endpoints.storage.createMount, async (request) => {
    const after = await mounts.create(identityOf(request), request.body);
    await audit.record(request, {
      action: 'mount.create',
      target: target(after.id),
      before: null,
      after: settable(after),
    });
    return after;
  });
  serve(app, endpoints.storage.getMount, async (request) => mounts.describe(request.params.mountId));
  serve(app, endpoints.storage.updateMount, async (request) =>
    audit.recordChange(
      request,
      { action: 'mount.update', target: target(request.params.mountId), view: settable },
      () => mounts.describe(request.params.mountId),
      () => mounts.update(identityOf(request), request.params.mountId, request.body),
    ),
  );
  serve(app, endpoints.storage.deleteMount, async (request, reply) => {
    const before = await mounts.describe(request.params.mountId);
    await mounts.delete(identityOf(request), request.params.mountId);
    await audit.record(request, {
      action: 'mount.delete',
      target: target(before.id),
      before: settable(before),
      after: null,
    });
    return reply.send();
  });
  serve(app, endpoints.storage.checkMount, async (request) => mounts.check(request.params.mountId));
}
