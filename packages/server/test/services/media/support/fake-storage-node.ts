import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RegistryClient } from '../../../../src/platform/registry-client.js';
import { probeResultOf, type FfprobeOutput } from '../../../../src/services/storage/probe/probe-tool.js';

/**
 * A small stand-in for a storage node's internal API (the one the media service reads from), over real
 * HTTP on real files in temp folders, probing with the real ffprobe:
 *   GET  /api/storage/internal/mounts
 *   GET  /api/storage/internal/probe-tool
 *   GET  /api/storage/internal/mounts/:mountId/walk?path=   (application/x-ndjson)
 *   GET|HEAD /api/storage/internal/mounts/:mountId/file?path=   (Range)
 *   POST /api/storage/internal/mounts/:mountId/probe { path }
 * Paths are relative to the mount root ('' = the root; a leading '/' is accepted).
 *
 * The media suites no longer use it: they run against the real storage node (support/media-env.ts). It is
 * kept only because bench/scan.ts scans the synthetic tree through it; once the bench starts the real node
 * (storageComponentFactory with a missing ffprobe, as media-synthetic-scan.test.ts does), delete this file.
 */

const run = promisify(execFile);

export interface FakeMount {
  id: string;
  name: string;
  root: string;
}

export interface FakeStorageNode {
  nodeId: string;
  baseUrl: string;
  /** Requests received, as `METHOD path` (without query). */
  requests: string[];
  /** Turns the probe tool off or on (as a node without ffprobe would answer). */
  setProbeAvailable(available: boolean): void;
  /** Registers in the install's registry and keeps the entry alive. */
  register(registry: RegistryClient): void;
  close(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};
const failure = (response: ServerResponse, status: number, code: string, message: string) =>
  json(response, status, { error: { code, message } });

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
}

/** Resolves a client path inside the mount root, or null when it would leave it. */
function resolveInside(root: string, raw: string): { absolute: string; relative: string } | null {
  if (raw.includes('\0') || raw.includes('\\')) return null;
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return null;
  const relative = segments.join('/');
  return { absolute: path.join(root, ...segments), relative };
}

type WalkLine = { path: string; type: 'file' | 'dir'; size: number; mtime: string };

/** Every entry below dir, one folder at a time (its entries stat'ed together), depth first. */
async function* walk(root: string, dir: string): AsyncGenerator<WalkLine[]> {
  const names = (await readdir(dir)).filter((name) => !name.startsWith('.svc-tmp-'));
  const infos = await Promise.all(names.map((name) => stat(path.join(dir, name)).catch(() => null)));
  const lines: WalkLine[] = [];
  const folders: string[] = [];
  names.forEach((name, index) => {
    const info = infos[index];
    if (!info) return;
    const absolute = path.join(dir, name);
    const relative = path.relative(root, absolute).split(path.sep).join('/');
    if (info.isDirectory()) {
      lines.push({ path: relative, type: 'dir', size: 0, mtime: info.mtime.toISOString() });
      folders.push(absolute);
    } else if (info.isFile()) {
      lines.push({ path: relative, type: 'file', size: info.size, mtime: info.mtime.toISOString() });
    }
  });
  yield lines;
  for (const folder of folders) yield* walk(root, folder);
}

async function probe(file: string, size: number): Promise<unknown> {
  const { stdout } = await run(
    'ffprobe',
    ['-hide_banner', '-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-i', file],
    { timeout: 30_000, maxBuffer: 8 * 1024 * 1024 },
  );
  // The same mapping the real storage node applies to ffprobe's output.
  return probeResultOf(JSON.parse(stdout) as FfprobeOutput, size);
}

export async function startFakeStorageNode(options: {
  nodeId: string;
  serviceToken: string;
  mounts: FakeMount[];
  probeAvailable?: boolean;
}): Promise<FakeStorageNode> {
  let probeAvailable = options.probeAvailable ?? true;
  const requests: string[] = [];
  const version = await run('ffprobe', ['-version']).then<string | null, null>(
    ({ stdout }) => /ffprobe version (\S+)/.exec(stdout)?.[1] ?? 'unknown',
    () => null,
  );

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push(`${request.method} ${url.pathname}`);
    if (request.headers['x-svc-service-token'] !== options.serviceToken) {
      return failure(response, 401, 'UNAUTHORIZED', 'service token required');
    }
    if (request.method === 'GET' && url.pathname === '/api/storage/internal/mounts') {
      return json(response, 200, {
        mounts: options.mounts.map((mount) => ({ id: mount.id, name: mount.name, provider: 'local' })),
      });
    }
    if (request.method === 'GET' && url.pathname === '/api/storage/internal/probe-tool') {
      return json(response, 200, {
        available: probeAvailable && version !== null,
        version: probeAvailable ? version : null,
      });
    }
    const match = /^\/api\/storage\/internal\/mounts\/([^/]+)\/(walk|file|probe)$/.exec(url.pathname);
    const mount = match
      ? options.mounts.find((candidate) => candidate.id === decodeURIComponent(match[1]!))
      : undefined;
    if (!match || !mount) return failure(response, 404, 'NOT_FOUND', 'no such route or mount');
    const action = match[2];

    if (action === 'walk' && request.method === 'GET') {
      const target = resolveInside(mount.root, url.searchParams.get('path') ?? '');
      if (!target) return failure(response, 400, 'INVALID_PATH', 'path is not valid');
      const info = await stat(target.absolute).catch(() => null);
      if (!info?.isDirectory()) return failure(response, 404, 'NOT_FOUND', 'no such folder');
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for await (const lines of walk(mount.root, target.absolute)) {
        if (lines.length === 0) continue;
        if (!response.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))) {
          await new Promise((resolve) => response.once('drain', resolve));
        }
      }
      response.end();
      return;
    }

    if (action === 'file' && (request.method === 'GET' || request.method === 'HEAD')) {
      const target = resolveInside(mount.root, url.searchParams.get('path') ?? '');
      if (!target) return failure(response, 400, 'INVALID_PATH', 'path is not valid');
      const info = await stat(target.absolute).catch(() => null);
      if (!info?.isFile()) return failure(response, 404, 'NOT_FOUND', 'no such file');
      const headers: Record<string, string | number> = {
        'content-type': 'application/octet-stream',
        'accept-ranges': 'bytes',
        'last-modified': info.mtime.toUTCString(),
        etag: `"${info.size.toString(16)}-${info.mtimeMs.toString(16)}"`,
      };
      let start = 0;
      let end = info.size - 1;
      let status = 200;
      const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
      if (range && (range[1] || range[2])) {
        if (range[1]) {
          start = Number(range[1]);
          end = range[2] ? Math.min(Number(range[2]), info.size - 1) : info.size - 1;
        } else {
          start = Math.max(0, info.size - Number(range[2]));
        }
        if (start > end || start >= info.size) {
          response.writeHead(416, { 'content-range': `bytes */${info.size}` });
          response.end();
          return;
        }
        status = 206;
        headers['content-range'] = `bytes ${start}-${end}/${info.size}`;
      }
      headers['content-length'] = info.size === 0 ? 0 : end - start + 1;
      response.writeHead(status, headers);
      if (request.method === 'HEAD' || info.size === 0) {
        response.end();
        return;
      }
      createReadStream(target.absolute, { start, end }).pipe(response);
      return;
    }

    if (action === 'probe' && request.method === 'POST') {
      const body = (await readJson(request)) as { path?: unknown };
      const target = typeof body.path === 'string' ? resolveInside(mount.root, body.path) : null;
      if (!target) return failure(response, 400, 'INVALID_PATH', 'path is not valid');
      if (!probeAvailable || version === null) return json(response, 200, { available: false });
      const info = await stat(target.absolute).catch(() => null);
      if (!info?.isFile()) return failure(response, 404, 'NOT_FOUND', 'no such file');
      try {
        return json(response, 200, { available: true, result: await probe(target.absolute, info.size) });
      } catch {
        return failure(response, 422, 'PROBE_FAILED', 'ffprobe could not read the file');
      }
    }
    return failure(response, 404, 'NOT_FOUND', 'no such route');
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) failure(response, 500, 'INTERNAL_ERROR', (error as Error).message);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    nodeId: options.nodeId,
    baseUrl,
    requests,
    setProbeAvailable: (available) => {
      probeAvailable = available;
    },
    register: (registry) =>
      registry.keepRegistered(
        {
          service: 'svc-control-storage',
          instanceId: `fake-${options.nodeId}`,
          nodeId: options.nodeId,
          baseUrl,
        },
        5_000,
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
