import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { attachmentDisposition } from '../../../platform/http/file-delivery/disposition.js';
import type { BinariesService } from './binaries.service.js';

export function registerBinaryRoutes(app: AppServer, binaries: BinariesService): void {
  serve(app, endpoints.config.getBinaryStatus, async () => binaries.status());

  // The node binary for a worker node holding its node token (?token=), checked by the route itself.
  serve(app, endpoints.config.downloadBinary, async (request, reply) => {
    const { service } = request.params;
    const { token } = request.query;
    const download = await binaries.open(service, typeof token === 'string' ? token : undefined);
    // The stream closes the file when it ends or is destroyed (autoClose); the length is the one of the open
    // file, so a binary replaced meanwhile (a rename) is still sent whole and consistent.
    const stream = download.handle.createReadStream({ start: 0, end: Math.max(download.size - 1, 0) });
    void reply
      .header('content-type', 'application/octet-stream')
      .header('content-length', String(download.size))
      .header('content-disposition', attachmentDisposition(download.fileName))
      .header('cache-control', 'no-store');
    if (download.version) void reply.header('x-svc-binary-version', download.version);
    if (download.size === 0) {
      stream.destroy();
      return reply.send('');
    }
    return reply.send(stream);
  });
}
