import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { mediaChapterSchema, mediaStreamSchema } from '@svc/contracts';
import type { RegistryClient } from '../../../platform/registry-client.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

export interface StorageMount {
  id: string;
  name: string;
  provider: string;
}

/** One entry below a walked folder; `path` is relative to the mount root with '/' separators. */
export interface WalkEntry {
  path: string;
  type: 'file' | 'dir';
  size: number;
  mtime: string;
}

export const probeResultSchema = z.object({
  container: z.string(),
  durationSeconds: z.number().nullable(),
  bitrate: z.number().nullable().optional(),
  size: z.number().nullable().optional(),
  streams: z.array(mediaStreamSchema),
  chapters: z.array(mediaChapterSchema).optional(),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;

export interface ProbeAnswer {
  /** False when the node has no probe tool; `result` is then absent. */
  available: boolean;
  result?: ProbeResult;
}

export interface ProbeToolInfo {
  available: boolean;
  version: string | null;
}

export interface StorageFile {
  statusCode: number;
  headers: Record<string, string>;
  body: Readable;
}

/**
 * The storage node could not be used: not registered (`offline`), the registry did not answer
 * (`registry`), the node did not answer (`unreachable`) or answered with an error (`refused`).
 */
export class StorageUnavailableError extends Error {
  constructor(
    readonly nodeId: string,
    readonly reason: 'offline' | 'registry' | 'unreachable' | 'refused',
    message: string,
  ) {
    super(message);
  }
}

/** The storage node answered 404: no such mount or path. */
export class StorageNotFoundError extends Error {}

/**
 * What the media service needs from storage nodes (their internal API, service token only). Paths are
 * inside the mount, '/'-separated; a leading '/' is allowed.
 */
export interface StorageGateway {
  listMounts(nodeId: string, signal?: AbortSignal): Promise<StorageMount[]>;
  /** Every file and folder below dir, recursively, as the node streams them. */
  walk(nodeId: string, mountId: string, dir: string, signal?: AbortSignal): AsyncIterable<WalkEntry>;
  /** The file's bytes (a Range header is passed on); the caller consumes or destroys the body. */
  openFile(
    nodeId: string,
    mountId: string,
    path: string,
    options?: { range?: string; signal?: AbortSignal },
  ): Promise<StorageFile>;
  /** A small text file (an .nfo), refused beyond maxBytes. */
  readText(
    nodeId: string,
    mountId: string,
    path: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<string>;
  probe(nodeId: string, mountId: string, path: string, signal?: AbortSignal): Promise<ProbeAnswer>;
  probeTool(nodeId: string, signal?: AbortSignal): Promise<ProbeToolInfo>;
}

const mountsSchema = z.object({
  mounts: z.array(z.object({ id: z.string(), name: z.string(), provider: z.string() })),
});
const walkEntrySchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'dir']),
  size: z.number().default(0),
  mtime: z.string(),
});
const probeAnswerSchema = z.object({ available: z.boolean(), result: probeResultSchema.optional() });
const probeToolSchema = z.object({ available: z.boolean(), version: z.string().nullable().optional() });

export interface HttpStorageGatewayOptions {
  registry: Pick<RegistryClient, 'lookup'>;
  serviceToken: string;
  /** Timeout for answers that should be quick (mounts, probe-tool, file headers). */
  timeoutMs?: number;
  /** Timeout of one probe (remote files can take long). */
  probeTimeoutMs?: number;
}

/** The storage nodes' internal HTTP API, found through the registry (service svc-control-storage). */
export class HttpStorageGateway implements StorageGateway {
  private readonly timeoutMs: number;
  private readonly probeTimeoutMs: number;

  constructor(private readonly options: HttpStorageGatewayOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 180_000;
  }

  private async baseUrl(nodeId: string): Promise<string> {
    let instances;
    try {
      instances = await this.options.registry.lookup('svc-control-storage', nodeId);
    } catch (error) {
      throw new StorageUnavailableError(
        nodeId,
        'registry',
        `registry lookup failed: ${(error as Error).message}`,
      );
    }
    const newest = [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
    if (!newest) throw new StorageUnavailableError(nodeId, 'offline', `storage node ${nodeId} is not online`);
    return newest.baseUrl.replace(/\/+$/, '');
  }

  private async call(
    nodeId: string,
    pathAndQuery: string,
    init: {
      method?: Dispatcher.HttpMethod;
      body?: string;
      headers?: Record<string, string>;
      signal?: AbortSignal;
      headersTimeout?: number;
      bodyTimeout?: number;
    } = {},
  ): Promise<Dispatcher.ResponseData> {
    const base = await this.baseUrl(nodeId);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${base}${pathAndQuery}`, {
        method: init.method ?? 'GET',
        headers: {
          [SERVICE_TOKEN_HEADER]: this.options.serviceToken,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        body: init.body,
        signal: init.signal,
        headersTimeout: init.headersTimeout ?? this.timeoutMs,
        bodyTimeout: init.bodyTimeout ?? this.timeoutMs,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new StorageUnavailableError(
        nodeId,
        'unreachable',
        `storage node ${nodeId} did not answer: ${(error as Error).message}`,
      );
    }
    if (response.statusCode === 404) {
      await response.body.dump();
      throw new StorageNotFoundError(`storage node ${nodeId}: ${pathAndQuery.split('?')[0]} not found`);
    }
    if (response.statusCode >= 400) {
      const text = await response.body.text().catch(() => '');
      throw new StorageUnavailableError(
        nodeId,
        'refused',
        `storage node ${nodeId} answered ${response.statusCode}: ${text.slice(0, 200)}`,
      );
    }
    return response;
  }

  /** The node's form of a path inside a mount: relative to the root, '' for the root itself. */
  private static relative(path: string): string {
    return path.replace(/^\/+/, '');
  }

  private static mountPath(mountId: string, tail: string): string {
    return `/api/storage/internal/mounts/${encodeURIComponent(mountId)}/${tail}`;
  }

  async listMounts(nodeId: string, signal?: AbortSignal): Promise<StorageMount[]> {
    const response = await this.call(nodeId, '/api/storage/internal/mounts', { signal });
    return mountsSchema.parse(await response.body.json()).mounts;
  }

  async *walk(nodeId: string, mountId: string, dir: string, signal?: AbortSignal): AsyncIterable<WalkEntry> {
    const query = new URLSearchParams({ path: HttpStorageGateway.relative(dir) });
    const response = await this.call(
      nodeId,
      `${HttpStorageGateway.mountPath(mountId, 'walk')}?${query.toString()}`,
      {
        signal,
        headersTimeout: 600_000,
        bodyTimeout: 600_000,
      },
    );
    let pending = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        pending += decoder.decode(chunk, { stream: true });
        let newline = pending.indexOf('\n');
        while (newline >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line) yield walkEntrySchema.parse(JSON.parse(line));
          newline = pending.indexOf('\n');
        }
      }
      const last = (pending + decoder.decode()).trim();
      if (last) yield walkEntrySchema.parse(JSON.parse(last));
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  async openFile(
    nodeId: string,
    mountId: string,
    path: string,
    options: { range?: string; signal?: AbortSignal } = {},
  ): Promise<StorageFile> {
    const query = new URLSearchParams({ path: HttpStorageGateway.relative(path) });
    const response = await this.call(
      nodeId,
      `${HttpStorageGateway.mountPath(mountId, 'file')}?${query.toString()}`,
      {
        signal: options.signal,
        headers: options.range ? { range: options.range } : {},
        bodyTimeout: 600_000,
      },
    );
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (typeof value === 'string') headers[name] = value;
      else if (Array.isArray(value)) headers[name] = value.join(', ');
    }
    return { statusCode: response.statusCode, headers, body: response.body };
  }

  async readText(
    nodeId: string,
    mountId: string,
    path: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<string> {
    const file = await this.openFile(nodeId, mountId, path, { signal });
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of file.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
        chunks.push(chunk);
      }
    } finally {
      if (!file.body.destroyed) file.body.destroy();
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async probe(nodeId: string, mountId: string, path: string, signal?: AbortSignal): Promise<ProbeAnswer> {
    const response = await this.call(nodeId, HttpStorageGateway.mountPath(mountId, 'probe'), {
      method: 'POST',
      body: JSON.stringify({ path: HttpStorageGateway.relative(path) }),
      signal,
      headersTimeout: this.probeTimeoutMs,
      bodyTimeout: this.probeTimeoutMs,
    });
    return probeAnswerSchema.parse(await response.body.json());
  }

  async probeTool(nodeId: string, signal?: AbortSignal): Promise<ProbeToolInfo> {
    const response = await this.call(nodeId, '/api/storage/internal/probe-tool', { signal });
    const answer = probeToolSchema.parse(await response.body.json());
    return { available: answer.available, version: answer.version ?? null };
  }
}
