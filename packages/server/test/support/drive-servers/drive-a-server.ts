import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
 * A DRIVE_A server on loopback, faithful to the OpenList/Alist API this node follows: `POST /api/fs/list`
 * and `POST /api/fs/get` with the token in `Authorization`, answers in the `{ code, message, data }`
 * envelope (HTTP 200 also for a refused token, code 401), and `raw_url` links signed with an `expires`
 * parameter that its `/d/...` route checks (403 once expired or tampered with).
 */
export interface DriveAServer {
  url: string;
  /** Calls of each API action so far. */
  calls: { list: number; get: number };
  /** User-Agent of the last API call. */
  lastUserAgent: string | undefined;
  /** Valid tokens; remove one to make it invalid. */
  tokens: Set<string>;
  /** Lifetime of new links in seconds. */
  linkSeconds: number;
  /** The next this many links presented at `/d` count as expired there (403, as a link past its expiry). */
  expiredLinks: number;
  /** Host name written into raw_url (the server listens on 127.0.0.1; 'localhost' resolves too). */
  linkHost: string;
  /** When set, fs/get answers only once this resolves (merging tests hold many requests in flight). */
  hold: Promise<void> | null;
  /** Milliseconds every request waits before it is answered (a drive far away; benches). */
  latencyMs: number;
  /** The link downloads (`/d/...`) as they overlap. */
  transfers: Transfers;
  stop(): Promise<void>;
}

const PAGE_SIZE_LIMIT = 2;

export async function startDriveAServer(
  tree: DriveTree,
  options: { token: string; now?: () => number },
): Promise<DriveAServer> {
  const now = options.now ?? Date.now;
  const secret = 'drive-a-signing-key';
  const sign = (path: string, expires: number) =>
    createHmac('sha256', secret).update(`${path}:${expires}`).digest('base64url');
  let port = 0;

  const state: Omit<DriveAServer, 'url' | 'stop'> = {
    calls: { list: 0, get: 0 },
    lastUserAgent: undefined,
    tokens: new Set([options.token]),
    linkSeconds: 3600,
    expiredLinks: 0,
    linkHost: '127.0.0.1',
    hold: null,
    latencyMs: 0,
    transfers: newTransfers(),
  };

  const json = (response: ServerResponse, code: number, message: string, data: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ code, message, data }));
  };
  const objectOf = (path: string) => {
    const entry = entryAt(tree, path);
    if (!entry) return null;
    return {
      name: entry.name,
      size: entry.size,
      is_dir: entry.dir,
      modified: '2024-05-01T10:00:00Z',
      sign: '',
    };
  };

  const api = async (action: string, request: IncomingMessage, response: ServerResponse, body: string) => {
    state.lastUserAgent = request.headers['user-agent'];
    if (action === 'list') state.calls.list += 1;
    if (action === 'get') state.calls.get += 1;
    if (!state.tokens.has(request.headers.authorization ?? ''))
      return json(response, 401, 'token is invalidated', null);
    const input = JSON.parse(body || '{}') as { path?: string; page?: number; per_page?: number };
    const path = input.path ?? '/';
    if (action === 'get') {
      if (state.hold) await state.hold;
      const object = objectOf(path);
      if (!object) return json(response, 500, 'failed get objs: object not found', null);
      const expires = Math.floor(now() / 1000) + state.linkSeconds;
      const rawUrl = object.is_dir
        ? ''
        : `http://${state.linkHost}:${port}/d${encodeURI(path)}?expires=${expires}&sign=${sign(path, expires)}`;
      return json(response, 200, 'success', { ...object, raw_url: rawUrl, provider: 'Local' });
    }
    const children = childrenOf(tree, path);
    if (!children || entryAt(tree, path)?.dir !== true)
      return json(response, 500, 'failed get objs: object not found', null);
    const perPage = Math.min(input.per_page ?? PAGE_SIZE_LIMIT, PAGE_SIZE_LIMIT);
    const page = input.page ?? 1;
    const content = children.slice((page - 1) * perPage, page * perPage).map((child) => objectOf(child.path));
    return json(response, 200, 'success', { content, total: children.length, readme: '', write: false });
  };

  const download = (url: URL, request: IncomingMessage, response: ServerResponse) => {
    const path = decodeURI(url.pathname.slice(2));
    const expires = Number(url.searchParams.get('expires'));
    const bytes = tree[path];
    if (!bytes) return void response.writeHead(404).end();
    const expired = expires * 1000 <= now() || state.expiredLinks > 0;
    if (state.expiredLinks > 0) state.expiredLinks -= 1;
    if (url.searchParams.get('sign') !== sign(path, expires) || expired) {
      return void response.writeHead(403).end('link expired or invalid');
    }
    void counted(state.transfers, request, response, () => {
      const answer = rangeAnswer(bytes, request.headers.range);
      response.writeHead(answer.status, answer.headers).end(answer.body);
    });
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    const answer = async () => {
      if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
      const action = /^\/api\/fs\/(list|get)$/.exec(url.pathname)?.[1];
      if (action && request.method === 'POST') {
        api(action, request, response, body).catch(() => response.writeHead(500).end());
      } else if (url.pathname.startsWith('/d/') && request.method === 'GET') download(url, request, response);
      else response.writeHead(404).end();
    };
    request.on('end', () => void answer());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
