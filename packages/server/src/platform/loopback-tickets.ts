import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './logger.js';

/**
 * Where a helper program (ffprobe, ffmpeg) reads a file: a listener on 127.0.0.1 (started on first use)
 * that serves one target per ticket. A ticket is 256 random bits in the URL path and lives only while its
 * run lasts, so no long-lived credential (the service token, drive passwords) appears in the program's
 * arguments.
 */
export class LoopbackTickets<T> {
  private server: Server | undefined;
  private starting: Promise<number> | undefined;
  private readonly tickets = new Map<string, T>();

  constructor(
    private readonly logger: Logger,
    private readonly serve: (
      request: IncomingMessage,
      response: ServerResponse,
      target: T,
    ) => Promise<unknown>,
  ) {}

  private start(): Promise<number> {
    this.starting ??= new Promise<number>((resolve, reject) => {
      const server = createServer((request, response) => {
        const ticket = (request.url ?? '').slice(1).split('?')[0] ?? '';
        const target = this.tickets.get(ticket);
        if (target === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
          response.writeHead(404).end();
          return;
        }
        this.serve(request, response, target).catch((error: unknown) => {
          this.logger.debug({ err: error }, 'loopback file read failed');
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

  /** A loopback URL for one target, valid until release() is called. */
  async open(target: T): Promise<{ url: string; release: () => void }> {
    const port = await this.start();
    const ticket = randomBytes(32).toString('hex');
    this.tickets.set(ticket, target);
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
