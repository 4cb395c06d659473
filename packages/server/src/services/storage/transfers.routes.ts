import {
  mountIdParamsSchema,
  transferIdParamsSchema,
  transferListQuerySchema,
  transferListSchema,
  transferRequestSchema,
  transferSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { streamTransferEvents } from './transfer-events.js';
import { parseMountPath } from './path-safety.js';
import {
  CONSOLE_STORAGE as config,
  entryFacts,
  fileTarget,
  identityOf,
  type StorageServices,
} from './storage-services.js';

/** Copies and moves (background transfers), their list, cancel, retry and the event stream. */
export function registerTransferRoutes(
  app: AppServer,
  { transfers, transferEvents, files, audit }: StorageServices,
): void {
  for (const kind of ['copy', 'move'] as const) {
    app.post(
      `/api/storage/mounts/:mountId/${kind}`,
      {
        config,
        schema: {
          params: mountIdParamsSchema,
          body: transferRequestSchema,
          response: { 202: transferSchema },
        },
      },
      async (request, reply) => {
        const { path, targetPath, overwrite } = request.body;
        const targetMountId = request.body.targetMountId ?? request.params.mountId;
        // An overwriting transfer runs in the background: before is the file it will replace, after the
        // file that takes its place, both as they are now.
        const stat = (mountId: string, at: string) =>
          files.stat(mountId, parseMountPath(at)).catch(() => null);
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
        return reply.status(202).send(transfer);
      },
    );
  }
  app.get(
    '/api/storage/transfers',
    { config, schema: { querystring: transferListQuerySchema, response: { 200: transferListSchema } } },
    async (request) => transfers.list(request.query),
  );
  app.get(
    '/api/storage/transfers/:transferId',
    { config, schema: { params: transferIdParamsSchema, response: { 200: transferSchema } } },
    async (request) => transfers.get(request.params.transferId),
  );
  app.post(
    '/api/storage/transfers/:transferId/cancel',
    { config, schema: { params: transferIdParamsSchema, response: { 200: transferSchema } } },
    async (request) => transfers.cancel(request.params.transferId),
  );
  app.post(
    '/api/storage/transfers/:transferId/retry',
    { config, schema: { params: transferIdParamsSchema, response: { 202: transferSchema } } },
    async (request, reply) => reply.status(202).send(await transfers.retry(request.params.transferId)),
  );
  app.get('/api/storage/mounts/transfer/events', { config }, (request, reply) => {
    streamTransferEvents(request, reply, transferEvents, () => transfers.active());
  });
}
