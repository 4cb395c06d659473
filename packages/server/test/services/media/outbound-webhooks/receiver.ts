import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** Answers a request; return false to leave the default (200 "ok"). */
export type Handler = (request: ReceivedRequest, response: ServerResponse) => boolean | void;

export interface Receiver {
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  requests: ReceivedRequest[];
  /** Replaces the answer of later requests. */
  handle(handler: Handler | null): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request it gets. */
export async function startReceiver(handler: Handler | null = null): Promise<Receiver> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      if (current && current(received, response) !== false) return;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    requests,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
