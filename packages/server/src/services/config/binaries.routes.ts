import { z } from 'zod';
import type { AppServer } from '../../platform/http/create-server.js';
import type { BinariesService } from './binaries.service.js';

/** GET /api/config/binaries/status (console, permission `node`). */
export const binaryStatusSchema = z.object({
  /** False: the config service provides no binary (downloads answer 404 BINARY_NOT_AVAILABLE). */
  provided: z.boolean(),
  file: z.string(),
  platform: z.string(),
  version: z.string().nullable(),
  sizeBytes: z.number().nullable(),
  sha256: z.string().nullable(),
  modifiedAt: z.string().nullable(),
  services: z.array(z.enum(['svc-control-storage', 'svc-play-agent'])),
  controlVersion: z.string(),
  /** Images of the docker install kinds (SVC_NODE_IMAGE, SVC_NODE_IMAGE_FFMPEG). */
  dockerImage: z.string(),
  dockerImageFfmpeg: z.string(),
  message: z.string(),
});

export function registerBinaryRoutes(app: AppServer, binaries: BinariesService): void {
  app.get(
    '/api/config/binaries/status',
    {
      config: { auth: { gateway: { kind: 'admin', anyOf: ['node'] } } },
      schema: { response: { 200: binaryStatusSchema } },
    },
    async () => binaries.status(),
  );

  // The node binary for a worker node holding its node token (?token=), checked by the route itself.
  app.get(
    '/api/config/binaries/:service',
    { config: { auth: { direct: 'own-credential', credential: 'node-token' } } },
    async (request, reply) => {
      const { service } = request.params as { service: string };
      const token = (request.query as Record<string, unknown>).token;
      const download = await binaries.open(service, typeof token === 'string' ? token : undefined);
      // The stream closes the file when it ends or is destroyed (autoClose); the length is the one of the open
      // file, so a binary replaced meanwhile (a rename) is still sent whole and consistent.
      const stream = download.handle.createReadStream({ start: 0, end: Math.max(download.size - 1, 0) });
      void reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(download.size))
        .header('content-disposition', `attachment; filename="${download.fileName}"`)
        .header('cache-control', 'no-store');
      if (download.version) void reply.header('x-svc-binary-version', download.version);
      if (download.size === 0) {
        stream.destroy();
        return reply.send('');
      }
      return reply.send(stream);
    },
  );
}
