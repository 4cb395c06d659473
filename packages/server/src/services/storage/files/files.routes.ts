import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { replyWithFile } from '../file-response.js';
import { keepHeadLength } from '../head-answer.js';
import type { FilesService } from './files.service.js';
import type { MountsService } from '../mounts.service.js';
import { parseMountPath } from '../path-safety.js';
import { entryFacts, fileTarget } from '../storage-audit.js';

/** Browsing, stat, download and the one-step operations of the file manager. */
export function registerFileRoutes(
  app: AppServer,
  files: FilesService,
  mounts: MountsService,
  audit: AuditClient,
): void {
  serve(app, endpoints.storage.browse, async (request) =>
    files.browse(request.params.mountId, parseMountPath(request.query.path), request.query),
  );
  serve(app, endpoints.storage.stat, async (request) =>
    files.stat(request.params.mountId, parseMountPath(request.query.path)),
  );
  // Fastify answers HEAD through this GET route too (headers only, the file's length kept).
  serve(
    app,
    endpoints.storage.download,
    async (request, reply) => {
      const path = parseMountPath(request.query.path);
      const mount = await mounts.get(request.params.mountId);
      return replyWithFile(request, reply, mount, path, { attachment: true });
    },
    { onSend: keepHeadLength },
  );
  serve(app, endpoints.storage.mkdir, async (request) =>
    files.mkdir(request.params.mountId, parseMountPath(request.body.path), request.body.parents),
  );
  serve(app, endpoints.storage.rename, async (request) =>
    files.rename(request.params.mountId, parseMountPath(request.body.path), request.body.newName),
  );
  serve(app, endpoints.storage.deleteEntry, async (request, reply) => {
    const { mountId } = request.params;
    const path = parseMountPath(request.body.path);
    const before = await files.stat(mountId, path);
    await files.delete(mountId, path, request.body.recursive);
    await audit.record(request, {
      action: 'file.delete',
      target: fileTarget(mountId, before.path),
      before: entryFacts(before),
      after: null,
    });
    return reply.send();
  });
}
