import { Readable } from 'node:stream';
import {
  internalMountListSchema,
  locateResponseSchema,
  mountIdParamsSchema,
  pathQuerySchema,
  probeRequestSchema,
  probeResponseSchema,
  probeToolSchema,
  requiredPathQuerySchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { replyWithFile } from './file-response.js';
import { locateFile } from './locate.js';
import { parseMountPath } from './path-safety.js';
import { storageErrors } from './storage-errors.js';
import { SERVICE_ONLY as config, type StorageServices } from './storage-services.js';

/** Lines of the walk are sent in batches of about this size, or after this long, whichever comes first. */
const WALK_BATCH_BYTES = 32 * 1024;
const WALK_BATCH_MS = 200;

/** Internal paths also accept the media service's normalised form ('/Movies' = 'Movies', '/' = root). */
const internalPath = (raw: string) => parseMountPath(raw, { allowLeadingSlash: true });

/** The internal API for the media service and play-agents (service token only; not in the gateway table). */
export function registerInternalRoutes(app: AppServer, services: StorageServices): void {
  const { mounts, files, probe } = services;

  app.get(
    '/api/storage/internal/mounts',
    { config, schema: { response: { 200: internalMountListSchema } } },
    async () => ({
      mounts: await mounts.internalList(),
    }),
  );

  app.get(
    '/api/storage/internal/mounts/:mountId/walk',
    { config, schema: { params: mountIdParamsSchema, querystring: pathQuerySchema } },
    async (request, reply) => {
      const dir = internalPath(request.query.path);
      const mount = await mounts.get(request.params.mountId);
      const root = await mount.provider.stat(dir);
      if (!root) throw storageErrors.pathNotFound();
      if (root.type !== 'dir') throw storageErrors.notADirectory();
      const controller = new AbortController();
      reply.raw.on('close', () => controller.abort());
      async function* lines(): AsyncGenerator<string> {
        let batch = '';
        let since = Date.now();
        for await (const line of files.walk(mount, dir, controller.signal)) {
          batch += `${JSON.stringify(line)}\n`;
          if (batch.length >= WALK_BATCH_BYTES || Date.now() - since >= WALK_BATCH_MS) {
            yield batch;
            batch = '';
            since = Date.now();
          }
        }
        if (batch) yield batch;
      }
      const stream = Readable.from(lines(), { objectMode: false });
      stream.on('error', (error) => request.log.warn({ err: error }, 'walk ended early'));
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.route({
    method: ['GET', 'HEAD'],
    url: '/api/storage/internal/mounts/:mountId/file',
    config,
    schema: { params: mountIdParamsSchema, querystring: requiredPathQuerySchema },
    handler: async (request, reply) => {
      const path = internalPath(request.query.path);
      const mount = await mounts.get(request.params.mountId);
      return replyWithFile(request, reply, mount, path, { attachment: false });
    },
  });

  // Where a file lies on this machine, for a play-agent running here (docs/streaming.md).
  app.get(
    '/api/storage/internal/mounts/:mountId/locate',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        querystring: requiredPathQuerySchema,
        response: { 200: locateResponseSchema },
      },
    },
    async (request) => locateFile(await mounts.get(request.params.mountId), internalPath(request.query.path)),
  );

  app.post(
    '/api/storage/internal/mounts/:mountId/probe',
    {
      config,
      schema: {
        params: mountIdParamsSchema,
        body: probeRequestSchema,
        response: { 200: probeResponseSchema },
      },
    },
    async (request) => probe.probe(request.params.mountId, internalPath(request.body.path)),
  );

  app.get(
    '/api/storage/internal/probe-tool',
    { config, schema: { response: { 200: probeToolSchema } } },
    async () => probe.toolStatus(),
  );
}
