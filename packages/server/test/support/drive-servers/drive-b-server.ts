import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  childrenOf,
  counted,
  entryAt,
  newTransfers,
  rangeAnswer,
  type DriveTree,
  type Transfers,
} from './drive-tree.js';

/**
 * A DRIVE_B server on loopback (docs/drives.md, "DRIVE_B"): files by id (`GET /v1/files/{id}`, the root's
 * id is `root`), folder listings `GET /v1/files?parent_id=&limit=&page_token=` in pages of at most two,
 * Bearer tokens (401 when refused), and the CDN route `GET /download/{id}?access_token=` with ranges.
 * Ids are the drive paths, base64url-encoded.
 */
export interface DriveBServer {
  url: string;
  /** host:port to configure as the mount's cdnHost. */
  cdnHost: string;
  calls: { file: number; list: number; download: number };
  tokens: Set<string>;
  /** Downloads of its own CDN route as they overlap. */
  transfers: Transfers;
  stop(): Promise<void>;
}

const PAGE_SIZE_LIMIT = 2;
const idOf = (path: string) => (path === '/' ? 'root' : Buffer.from(path).toString('base64url'));
/** The drive path of a file id (ids are base64url paths): the CDN servers serve the same files. */
export const pathOf = (id: string) => (id === 'root' ? '/' : Buffer.from(id, 'base64url').toString('utf8'));

export async function startDriveBServer(tree: DriveTree, options: { token: string }): Promise<DriveBServer> {
  const state = {
    calls: { file: 0, list: 0, download: 0 },
    tokens: new Set([options.token]),
    transfers: newTransfers(),
  };
  const fileOf = (path: string) => {
    const entry = entryAt(tree, path);
    if (!entry) return null;
    return {
      id: idOf(path),
      name: entry.name || 'root',
      kind: entry.dir ? 'folder' : 'file',
      size: entry.size,
      modified_at: '2024-05-01T10:00:00Z',
    };
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const download = /^\/download\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (download) {
      state.calls.download += 1;
      if (!state.tokens.has(url.searchParams.get('access_token') ?? ''))
        return void response.writeHead(403).end();
      const bytes = tree[pathOf(download[1]!)];
      if (!bytes) return void response.writeHead(404).end();
      return void counted(state.transfers, request, response, () => {
        const answer = rangeAnswer(bytes, request.headers.range);
        response.writeHead(answer.status, answer.headers).end(answer.body);
      });
    }
    if (
      request.headers.authorization === undefined ||
      !state.tokens.has(request.headers.authorization.replace(/^Bearer /, ''))
    ) {
      return send(401, { error: 'invalid_token' });
    }
    const single = /^\/v1\/files\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (single) {
      state.calls.file += 1;
      const file = fileOf(pathOf(single[1]!));
      return file ? send(200, file) : send(404, { error: 'not_found' });
    }
    if (url.pathname === '/v1/files') {
      state.calls.list += 1;
      const parent = pathOf(url.searchParams.get('parent_id') ?? 'root');
      const children = entryAt(tree, parent)?.dir ? childrenOf(tree, parent) : null;
      if (!children) return send(404, { error: 'not_found' });
      const limit = Math.min(Number(url.searchParams.get('limit') ?? PAGE_SIZE_LIMIT), PAGE_SIZE_LIMIT);
      const offset = Number(url.searchParams.get('page_token') ?? 0);
      const files = children.slice(offset, offset + limit).map((child) => fileOf(child.path));
      const next = offset + limit < children.length ? String(offset + limit) : null;
      return send(200, { files, next_page_token: next });
    }
    send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    cdnHost: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
