import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { pathOf } from './drive-b-server.js';
import { rangeAnswer, type DriveTree } from './drive-tree.js';
import type { TestCa } from './test-ca.js';

/** How one CDN address behaves: delay before the answer's headers and the pace of its body. */
export interface CdnProfile {
  latencyMs: number;
  bytesPerSecond: number;
}

/** One address of the CDN: an HTTPS server on 127.0.0.x serving DRIVE_B's download route. */
export interface CdnNode {
  ip: string;
  profile: CdnProfile;
  /** Download requests that reached this address. */
  downloads: number;
  /** Answers 403 to this many more downloads (an edge that stopped accepting the link). */
  refuseNext: number;
  /** Stops listening and drops its connections: the address is dead. */
  kill(): Promise<void>;
  alive: boolean;
}

export interface CdnServers {
  /** The CDN host name with the common port, as the mount's cdnHost. */
  host: string;
  port: number;
  nodes: Map<string, CdnNode>;
  stop(): Promise<void>;
}

const CHUNK = 16 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The DRIVE_B CDN (docs/drives.md): `GET /download/{id}?access_token=` with ranges, served over HTTPS with a
 * certificate for `hostname` from the test CA, on several loopback addresses that share one port, each with
 * its own latency and throughput. The files and tokens are the DRIVE_B server's.
 */
export async function startCdnServers(options: {
  hostname: string;
  ca: TestCa;
  tree: DriveTree;
  tokens: Set<string>;
  profiles: Record<string, CdnProfile>;
}): Promise<CdnServers> {
  const nodes = new Map<string, CdnNode>();
  const servers: Server[] = [];
  let port = 0;
  for (const [ip, profile] of Object.entries(options.profiles)) {
    const sockets = new Set<Socket>();
    const node: CdnNode = {
      ip,
      profile,
      downloads: 0,
      refuseNext: 0,
      alive: true,
      kill: async () => undefined,
    };
    const server = createServer({ cert: options.ca.certPem, key: options.ca.keyPem }, (request, response) => {
      void (async () => {
        const url = new URL(request.url ?? '/', `https://${options.hostname}`);
        await sleep(node.profile.latencyMs);
        const download = /^\/download\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
        if (!download) return void response.writeHead(404).end();
        node.downloads += 1;
        if (node.refuseNext > 0) {
          node.refuseNext -= 1;
          return void response.writeHead(403).end();
        }
        if (!options.tokens.has(url.searchParams.get('access_token') ?? '')) {
          return void response.writeHead(403).end();
        }
        const bytes = options.tree[pathOf(download[1]!)];
        if (!bytes) return void response.writeHead(404).end();
        const answer = rangeAnswer(bytes, request.headers.range);
        response.writeHead(answer.status, answer.headers);
        // Paced: byte n leaves no earlier than n / bytesPerSecond after the first.
        const started = Date.now();
        for (let sent = 0; sent < answer.body.length && !response.destroyed; sent += CHUNK) {
          const due = started + (sent / node.profile.bytesPerSecond) * 1000;
          if (due > Date.now()) await sleep(due - Date.now());
          if (!response.write(answer.body.subarray(sent, sent + CHUNK))) {
            await new Promise<void>((resolve) => {
              const done = () => {
                response.off('drain', done);
                response.off('close', done);
                resolve();
              };
              response.on('drain', done);
              response.on('close', done);
            });
          }
        }
        response.end();
      })().catch(() => response.destroy());
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.listen(port, ip);
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    node.kill = async () => {
      node.alive = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    };
    servers.push(server);
    nodes.set(ip, node);
  }
  return {
    host: `${options.hostname}:${port}`,
    port,
    nodes,
    stop: async () => {
      await Promise.all([...nodes.values()].filter((node) => node.alive).map((node) => node.kill()));
    },
  };
}
