import { Readable } from 'node:stream';
import { DRIVE_USER_AGENT_HEADER, endpoints } from '@svc/contracts';
import { badRequest } from '../../../platform/http/errors.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { replyWithInternalFile } from '../file-response.js';
import { keepHeadLength } from '../head-answer.js';
import type { FilesService } from '../files/files.service.js';
import { locateFile } from '../files/locate.js';
import type { MountsService } from '../mounts.service.js';
import { DriveStorageProvider } from '../drives/drive-storage.js';
import { parseMountPath } from '../path-safety.js';
import type { ProbeService } from '../probe/probe.service.js';
import { storageErrors } from '../storage-errors.js';

/** Lines of the walk are sent in batches of about this size, or after this long, whichever comes first. */
const WALK_BATCH_BYTES = 32 * 1024;
const WALK_BATCH_MS = 200;

/** Internal paths also accept the media service's normalised form ('/Movies' = 'Movies', '/' = root). */
const internalPath = (raw: string) => parseMountPath(raw, { allowLeadingSlash: true });

/** The internal API for the media service and play-agents (service token only; not in the gateway table). */
export function registerInternalRoutes(
  app: AppServer,
  mounts: MountsService,
  files: FilesService,
  probe: ProbeService,
): void {
  serve(app, endpoints.storage.internalListMounts, async () => ({ mounts: await mounts.internalList() }));

  serve(app, endpoints.storage.internalWalk, async (request, reply) => {
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
    return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(stream);
  });

  // Fastify answers HEAD through this GET route too (headers only, the file's length kept).
  serve(
    app,
    endpoints.storage.internalFile,
    async (request, reply) => {
      const path = internalPath(request.query.path);
      const mount = await mounts.get(request.params.mountId);
      return replyWithInternalFile(request, reply, mount, path);
    },
    { onSend: keepHeadLength },
  );

  // Where a file lies on this machine, for a play-agent running here (docs/streaming.md).
  serve(app, endpoints.storage.internalLocate, async (request) =>
    locateFile(await mounts.get(request.params.mountId), internalPath(request.query.path)),
  );

  // A direct link for a play-agent's redirect (docs/drives.md); the link itself is never logged.
  serve(app, endpoints.storage.internalDirectLink, async (request) => {
    const mount = await mounts.get(request.params.mountId);
    if (!(mount.provider instanceof DriveStorageProvider)) throw badRequest('this mount is not a drive');
    const header = request.headers[DRIVE_USER_AGENT_HEADER];
    const userAgent = typeof header === 'string' && /^[\x20-\x7e]{1,512}$/.test(header) ? header : undefined;
    const link = await mount.provider.drive.directLink(internalPath(request.query.path), { userAgent });
    return {
      provider: mount.kind,
      accountId: mount.accountId ?? mount.id,
      url: link.url,
      expiresAt: link.expiresAt?.toISOString() ?? null,
      headers: link.headers,
    };
  });

  serve(app, endpoints.storage.internalProbe, async (request) =>
    probe.probe(request.params.mountId, internalPath(request.body.path)),
  );

  serve(app, endpoints.storage.internalProbeTool, async () => probe.toolStatus());
}
