import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../platform/logger.js';
import { serveFileRaw } from './file-response.js';
import type { OpenMount } from './mounts.service.js';
import type { MountPath } from './path-safety.js';

/**
 * Where ffprobe reads files of mounts that are not on this machine: a listener on 127.0.0.1 (started on
 * first use) that serves one file per ticket, with the same range code as the download and internal file
 * routes. A ticket is 256 random bits in the URL path and lives only while its probe runs, so no
 * long-lived credential (the service token, WebDAV passwords) ever appears in ffprobe's arguments.
 */
export class ProbeSource {
  private server: Server | undefined;
  private starting: Promise<number> | undefined;
  private readonly tickets = new Map<string, { mount: OpenMount; path: MountPath }>();

  constructor(private readonly logger: Logger) {}

  private start(): Promise<number> {
    this.starting ??= new Promise<number>((resolve, reject) => {
      const server = createServer((request, response) => {
        const ticket = (request.url ?? '').slice(1).split('?')[0] ?? '';
        const target = this.tickets.get(ticket);
        if (!target || (request.method !== 'GET' && request.method !== 'HEAD')) {
          response.writeHead(404).end();
          return;
        }
        serveFileRaw(request, response, target.mount, target.path).catch((error: unknown) => {
          this.logger.debug({ err: error }, 'probe source read failed');
          if (!response.headersSent) response.writeHead(502);
          response.destroy();
        });
      });
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0 }, () => {
        this.server = server;
        resolve((server.address() as AddressInfo).port);
      });
    });
    return this.starting;
  }

  /** A loopback URL for one file, valid until release() is called. */
  async open(mount: OpenMount, path: MountPath): Promise<{ url: string; release: () => void }> {
    const port = await this.start();
    const ticket = randomBytes(32).toString('hex');
    this.tickets.set(ticket, { mount, path });
    return { url: `http://127.0.0.1:${port}/${ticket}`, release: () => this.tickets.delete(ticket) };
  }

  async close(): Promise<void> {
    this.tickets.clear();
    const server = this.server;
    this.server = undefined;
    this.starting = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}
