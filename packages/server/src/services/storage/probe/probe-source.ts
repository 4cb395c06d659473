import type { Logger } from '../../../platform/logger.js';
import { LoopbackTickets } from '../../../platform/loopback-tickets.js';
import { serveFileRaw } from '../file-response.js';
import type { OpenMount } from '../mounts.service.js';
import type { MountPath } from '../path-safety.js';

/**
 * Where ffprobe reads files of mounts that are not on this machine: a loopback ticket per probe (see
 * LoopbackTickets), served with the same range code as the download and internal file routes.
 */
export class ProbeSource {
  private readonly tickets: LoopbackTickets<{ mount: OpenMount; path: MountPath }>;

  constructor(logger: Logger) {
    this.tickets = new LoopbackTickets(logger, (request, response, target) =>
      serveFileRaw(request, response, target.mount, target.path),
    );
  }

  /** A loopback URL for one file, valid until release() is called. */
  open(mount: OpenMount, path: MountPath): Promise<{ url: string; release: () => void }> {
    return this.tickets.open({ mount, path });
  }

  close(): Promise<void> {
    return this.tickets.close();
  }
}
