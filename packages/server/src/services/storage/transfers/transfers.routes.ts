import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { FilesService } from '../files/files.service.js';
import { parseMountPath } from '../path-safety.js';
import { entryFacts, fileTarget } from '../storage-audit.js';
import { streamTransferEvents, type TransferEvents } from './transfer-events.js';
import type { TransfersService } from './transfers.service.js';

/** Copies and moves (background transfers), their list, cancel, retry and the event stream. */
export function registerTransferRoutes(
  app: AppServer,
  transfers: TransfersService,
  transferEvents: TransferEvents,
  files: FilesService,
  audit: AuditClient,
): void {
  for (const kind of ['copy', 'move'] as const) {
    serve(app, endpoints.storage[kind], async (request) => {
      const { path, targetPath, overwrite } = request.body;
      const targetMountId = request.body.targetMountId ?? request.params.mountId;
      // An overwriting transfer runs in the background: before is the file it will replace, after the
      // file that takes its place, both as they are now.
      const stat = (mountId: string, at: string) => files.stat(mountId, parseMountPath(at)).catch(() => null);
      const replaced = overwrite ? await stat(targetMountId, targetPath) : null;
      const source = replaced ? await stat(request.params.mountId, path) : null;
      const transfer = await transfers.create(
        identityOf(request),
        kind,
        request.params.mountId,
        request.body,
      );
      if (replaced) {
        await audit.record(request, {
          action: 'file.transfer-overwrite',
          target: fileTarget(targetMountId, replaced.path),
          before: entryFacts(replaced),
          after: source && entryFacts(source),
          details: { kind, transferId: transfer.id, source: { mountId: request.params.mountId, path } },
        });
      }
      return transfer;
    });
  }
  serve(app, endpoints.storage.listTransfers, async (request) => transfers.list(request.query));
  serve(app, endpoints.storage.getTransfer, async (request) => transfers.get(request.params.transferId));
  serve(app, endpoints.storage.cancelTransfer, async (request) =>
    transfers.cancel(request.params.transferId),
  );
  serve(app, endpoints.storage.retryTransfer, async (request) => transfers.retry(request.params.transferId));
  serve(app, endpoints.storage.transferEvents, async (request, reply) => {
    streamTransferEvents(request, reply, transferEvents, () => transfers.active());
    return reply;
  });
}
