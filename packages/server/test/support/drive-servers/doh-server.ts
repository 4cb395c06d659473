import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { TestCa } from './test-ca.js';

/**
 * A DNS-over-HTTPS resolver (RFC 8484) on loopback: `POST /dns-query` with an `application/dns-message`
 * body, or `GET /dns-query?dns=<base64url>`. It answers A questions for the names it knows (answer names
 * compressed as pointers to the question), no AAAA records, and NXDOMAIN for other names. Messages are
 * parsed and built here byte by byte, independently of the node's own encoder.
 */
export interface DohServer {
  url: string;
  /** name → IPv4 addresses; change it to change the answers. */
  records: Map<string, string[]>;
  queries: number;
  stop(): Promise<void>;
}

function questionOf(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = message[offset]!;
    offset += 1;
    if (length === 0) break;
    labels.push(message.toString('ascii', offset, offset + length));
    offset += length;
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 };
}

function answerTo(query: Buffer, records: Map<string, string[]>): Buffer {
  const question = questionOf(query);
  const known = records.get(question.name);
  const addresses = question.type === 1 ? (known ?? []) : [];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // QR, RD, RA; NXDOMAIN for unknown names
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    record.writeUInt16BE(1, 2); // A
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((part, index) => record.writeUInt8(Number(part), 12 + index));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, question.end), ...answers]);
}

export async function startDohServer(ca: TestCa, records: Record<string, string[]>): Promise<DohServer> {
  const state = { records: new Map(Object.entries(records)), queries: 0 };
  const server = createServer({ cert: ca.certPem, key: ca.keyPem }, (request, response) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    if (url.pathname !== '/dns-query') return void response.writeHead(404).end();
    const reply = (query: Buffer) => {
      state.queries += 1;
      const body = answerTo(query, state.records);
      response.writeHead(200, { 'content-type': 'application/dns-message', 'content-length': body.length });
      response.end(body);
    };
    if (request.method === 'GET') {
      const dns = url.searchParams.get('dns');
      return dns ? reply(Buffer.from(dns, 'base64url')) : void response.writeHead(400).end();
    }
    if (request.headers['content-type'] !== 'application/dns-message') {
      return void response.writeHead(415).end();
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => reply(Buffer.concat(chunks)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `https://127.0.0.1:${port}/dns-query`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
