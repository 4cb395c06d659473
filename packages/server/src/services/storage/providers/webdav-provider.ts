import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import { webdavProviderConfigSchema, type WebdavProviderConfig } from '@svc/contracts';
import { AppError, badRequest } from '../../../platform/http/errors.js';
import { parseContentRange } from '../../../platform/http/file-delivery/range.js';
import { joinPath, nameOf, parentOf, segmentsOf, type MountPath } from '../path-safety.js';
import { NativeUnsupported, storageErrors } from '../storage-errors.js';
import { literalHostAllowed, publicOnlyLookup } from './network-guard.js';
import {
  type ByteRange,
  type ProviderCapabilities,
  type ProviderDefinition,
  type ProviderEntry,
  type ProviderUsage,
  type StorageProvider,
  type WriteOptions,
  parseProviderConfig,
} from './provider.js';
import { parseMultistatus } from './webdav-xml.js';

const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getlastmodified/></d:prop></d:propfind>';
/** The root's type and its RFC 4331 quota (servers without quota answer 404 for those two properties). */
const QUOTA_PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:quota-available-bytes/><d:quota-used-bytes/></d:prop></d:propfind>';
const MAX_PROPFIND_BYTES = 64 * 1024 * 1024;
const BODY_TIMEOUT_MS = 120_000;

/** Passes on bytes [start, end] of a stream that began at offset 0 (a server that ignored Range). */
class RangeSlicer extends Transform {
  private offset = 0;
  private done = false;
  constructor(
    private readonly first: number,
    private readonly last: number,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.done) return callback();
    const chunkStart = this.offset;
    this.offset += chunk.length;
    const from = Math.max(this.first - chunkStart, 0);
    const to = Math.min(this.last + 1 - chunkStart, chunk.length);
    if (to > from) this.push(chunk.subarray(from, to));
    if (this.offset > this.last) {
      this.done = true;
      this.push(null);
    }
    callback();
  }
}

/** The slice [start, end] of a body that starts at offset 0; the body is dropped once the slice is out. */
function sliceOf(body: Readable, range: ByteRange): Readable {
  const slicer = new RangeSlicer(range.start, range.end);
  body.on('error', (error) => slicer.destroy(error));
  slicer.on('end', () => body.destroy());
  slicer.on('close', () => body.destroy());
  return body.pipe(slicer);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/** The file's total size a GET answer states: Content-Range's (206, 416) or Content-Length (200). */
function totalSizeOf(status: number, headers: IncomingHttpHeaders): number | null {
  if (status === 200) {
    const length = single(headers['content-length']);
    return length !== undefined && /^[0-9]{1,15}$/.test(length) ? Number(length) : null;
  }
  const contentRange = single(headers['content-range']);
  if (status === 416) {
    const match = /^bytes \*\/([0-9]{1,15})$/i.exec(contentRange?.trim() ?? '');
    return match ? Number(match[1]) : null;
  }
  return parseContentRange(contentRange)?.size ?? null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The decoded path of an href (absolute URL or absolute path), without a trailing '/'. */
function hrefPath(href: string, base: URL): string {
  let pathname: string;
  try {
    pathname = new URL(href, base).pathname;
  } catch {
    pathname = href;
  }
  const decoded = pathname.split('/').map(decodeSegment).join('/');
  return decoded.length > 1 && decoded.endsWith('/') ? decoded.slice(0, -1) : decoded;
}

/** A WebDAV server (RFC 4918) over undici: PROPFIND, GET with Range, PUT, MKCOL, MOVE, COPY, DELETE. */
export class WebdavProvider implements StorageProvider {
  readonly kind = 'webdav';
  readonly capabilities: ProviderCapabilities;
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly authorization: string | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly config: WebdavProviderConfig) {
    this.base = new URL(config.url.endsWith('/') ? config.url : `${config.url}/`);
    this.base.hash = '';
    this.base.search = '';
    this.timeoutMs = config.timeoutSeconds * 1000;
    this.agent = new Agent({
      connections: 32,
      keepAliveTimeout: 30_000,
      ...(config.allowPrivateNetwork ? {} : { connect: { lookup: publicOnlyLookup } }),
    });
    this.authorization =
      config.username !== undefined
        ? `Basic ${Buffer.from(`${config.username}:${config.password ?? ''}`, 'utf8').toString('base64')}`
        : undefined;
    this.capabilities = {
      rangeReads: true,
      serverSideCopy: true,
      serverSideMove: true,
      directLinks: false,
      cdnHosts: [],
      downloadThreads: config.downloadThreads,
      chunkSizeBytes: 8 * 1024 * 1024,
      localFiles: false,
    };
  }

  private urlOf(path: MountPath, collection = false): string {
    const relative = segmentsOf(path).map(encodeURIComponent).join('/');
    return new URL(relative + (collection && relative !== '' ? '/' : ''), this.base).toString();
  }

  private async call(
    method: string,
    url: string,
    options: {
      headers?: Record<string, string>;
      body?: string | Readable;
      signal?: AbortSignal;
      longBody?: boolean;
    } = {},
  ): Promise<Dispatcher.ResponseData> {
    if (!this.config.allowPrivateNetwork && !literalHostAllowed(this.base.hostname)) {
      throw storageErrors.unavailable(
        'the WebDAV address is private or local and allowPrivateNetwork is off',
      );
    }
    try {
      return await request(url, {
        method,
        dispatcher: this.agent,
        headers: { ...(this.authorization ? { authorization: this.authorization } : {}), ...options.headers },
        body: options.body,
        signal: options.signal,
        headersTimeout: options.longBody ? BODY_TIMEOUT_MS * 5 : this.timeoutMs,
        bodyTimeout: options.longBody ? BODY_TIMEOUT_MS : this.timeoutMs,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const message = (error as Error).message;
      throw storageErrors.unavailable(`the WebDAV server did not answer: ${message}`);
    }
  }

  /** Throws the storage error for a failed status (after draining the body). */
  private async fail(response: Dispatcher.ResponseData, context: string): Promise<never> {
    await response.body.dump().catch(() => undefined);
    const status = response.statusCode;
    if (status === 404) throw storageErrors.pathNotFound();
    if (status === 401) throw storageErrors.unavailable('the WebDAV server refused the credentials');
    if (status === 403) throw new AppError(403, 'FORBIDDEN', 'the WebDAV server refused this operation');
    if (status === 412) throw storageErrors.alreadyExists();
    if (status === 507) throw new AppError(507, 'INSUFFICIENT_STORAGE', 'the WebDAV server is out of space');
    throw storageErrors.unavailable(`WebDAV ${context} answered ${status}`);
  }

  private async propfind(url: string, depth: '0' | '1', signal?: AbortSignal, body = PROPFIND_BODY) {
    const response = await this.call('PROPFIND', url, {
      headers: { depth, 'content-type': 'application/xml; charset=utf-8' },
      body,
      signal,
    });
    if (response.statusCode === 404) {
      await response.body.dump();
      return null;
    }
    if (response.statusCode !== 207) await this.fail(response, 'PROPFIND');
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_PROPFIND_BYTES) {
      await response.body.dump();
      throw storageErrors.unavailable('WebDAV listing is too large');
    }
    return parseMultistatus(await response.body.text());
  }

  async check(signal?: AbortSignal): Promise<void> {
    const resources = await this.propfind(this.base.toString(), '0', signal);
    if (!resources) throw storageErrors.unavailable('the WebDAV address does not exist');
    if (!resources[0]?.collection) throw storageErrors.unavailable('the WebDAV address is not a collection');
  }

  /** The RFC 4331 quota of the root collection: used + available = total; nulls when the server has none. */
  async usage(signal?: AbortSignal): Promise<ProviderUsage> {
    const resources = await this.propfind(this.base.toString(), '0', signal, QUOTA_PROPFIND_BODY);
    if (!resources) throw storageErrors.unavailable('the WebDAV address does not exist');
    const root = resources[0];
    if (!root?.collection) throw storageErrors.unavailable('the WebDAV address is not a collection');
    const used = root.quotaUsedBytes ?? null;
    const free = root.quotaAvailableBytes ?? null;
    return {
      totalBytes: used !== null && free !== null ? used + free : null,
      usedBytes: used,
      freeBytes: free,
    };
  }

  async stat(path: MountPath, signal?: AbortSignal): Promise<ProviderEntry | null> {
    const resources = await this.propfind(this.urlOf(path), '0', signal);
    const self = resources?.[0];
    if (!self) return null;
    return {
      name: nameOf(path),
      type: self.collection ? 'dir' : 'file',
      size: self.collection ? 0 : (self.size ?? 0),
      mtime: self.mtime ?? new Date(0),
    };
  }

  async *list(dir: MountPath, signal?: AbortSignal): AsyncIterable<ProviderEntry> {
    const url = this.urlOf(dir, true);
    const resources = await this.propfind(url, '1', signal);
    if (!resources) throw storageErrors.pathNotFound();
    const selfPath = hrefPath(url, this.base);
    const self = resources.find((resource) => hrefPath(resource.href, this.base) === selfPath);
    if (self && !self.collection) throw storageErrors.notADirectory();
    for (const resource of resources) {
      const path = hrefPath(resource.href, this.base);
      if (path === selfPath) continue;
      const slash = path.lastIndexOf('/');
      if (path.slice(0, slash) !== selfPath && !(slash === 0 && selfPath === '/')) continue;
      const name = path.slice(slash + 1);
      // A server's listing is not trusted: names that could step elsewhere are left out.
      if (!name || name === '.' || name === '..' || /[\\\0]/.test(name)) continue;
      yield {
        name,
        type: resource.collection ? 'dir' : 'file',
        size: resource.collection ? 0 : (resource.size ?? 0),
        mtime: resource.mtime ?? new Date(0),
      };
    }
  }

  async read(path: MountPath, options: { range?: ByteRange; signal?: AbortSignal } = {}): Promise<Readable> {
    const { range } = options;
    const response = await this.call('GET', this.urlOf(path), {
      headers: range ? { range: `bytes=${range.start}-${range.end}` } : {},
      signal: options.signal,
      longBody: true,
    });
    if (response.statusCode === 206) return response.body;
    if (response.statusCode === 200) return range ? sliceOf(response.body, range) : response.body;
    if (response.statusCode === 416) {
      await response.body.dump();
      throw new AppError(416, 'RANGE_NOT_SATISFIABLE', 'range not satisfiable');
    }
    return this.fail(response, 'GET');
  }

  async readKnownSize(
    path: MountPath,
    options: { range: ByteRange; size: number; signal?: AbortSignal },
  ): Promise<{ body: Readable; mtime: Date | null }> {
    const { range, size } = options;
    const response = await this.call('GET', this.urlOf(path), {
      headers: { range: `bytes=${range.start}-${range.end}` },
      signal: options.signal,
      longBody: true,
    });
    const { statusCode, headers } = response;
    if (statusCode !== 200 && statusCode !== 206 && statusCode !== 416) return this.fail(response, 'GET');
    const total = totalSizeOf(statusCode, headers);
    if (total !== size || statusCode === 416) {
      await response.body.dump().catch(() => undefined);
      throw storageErrors.fileChanged(size, total);
    }
    if (statusCode === 206) {
      const answered = parseContentRange(single(headers['content-range']));
      if (answered?.start !== range.start || answered.end !== range.end) {
        await response.body.dump().catch(() => undefined);
        throw storageErrors.unavailable('the WebDAV server answered another range than the one asked');
      }
    }
    const modified = Date.parse(single(headers['last-modified']) ?? '');
    return {
      body: statusCode === 206 ? response.body : sliceOf(response.body, range),
      mtime: Number.isNaN(modified) ? null : new Date(modified),
    };
  }

  private async remove(url: string): Promise<void> {
    const response = await this.call('DELETE', url);
    await response.body.dump();
  }

  private async moveUrl(from: string, to: string, overwrite: boolean): Promise<void> {
    const response = await this.call('MOVE', from, {
      headers: { destination: to, overwrite: overwrite ? 'T' : 'F' },
    });
    if (response.statusCode >= 200 && response.statusCode < 300) {
      await response.body.dump();
      return;
    }
    await this.fail(response, 'MOVE');
  }

  async write(path: MountPath, source: Readable, options: WriteOptions): Promise<void> {
    const temp = this.urlOf(joinPath(parentOf(path), options.tempName));
    let created = false;
    try {
      const existing = await this.stat(path, options.signal);
      if (existing?.type === 'dir') throw storageErrors.isADirectory();
      if (existing && !options.overwrite) throw storageErrors.alreadyExists();
      const parent = await this.stat(parentOf(path), options.signal);
      if (!parent) throw storageErrors.pathNotFound();
      if (parent.type !== 'dir') throw storageErrors.notADirectory();
      created = true;
      const response = await this.call('PUT', temp, {
        headers: {
          'content-type': 'application/octet-stream',
          ...(options.size !== undefined ? { 'content-length': String(options.size) } : {}),
        },
        body: source,
        signal: options.signal,
        longBody: true,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) await this.fail(response, 'PUT');
      await response.body.dump();
      options.signal?.throwIfAborted();
      await this.moveUrl(temp, this.urlOf(path), options.overwrite);
    } catch (error) {
      source.destroy();
      if (created) await this.remove(temp).catch(() => undefined);
      throw error;
    }
  }

  async mkdir(path: MountPath, options: { parents: boolean }): Promise<void> {
    const targets: MountPath[] = [];
    if (options.parents) {
      let current = '' as MountPath;
      for (const segment of segmentsOf(path)) {
        current = joinPath(current, segment);
        targets.push(current);
      }
    } else {
      targets.push(path);
    }
    for (const target of targets) {
      // Some servers (rclone among them) answer 201 to MKCOL on an existing folder: look first.
      const existing = await this.stat(target);
      if (existing) {
        if (!options.parents) throw storageErrors.alreadyExists();
        if (existing.type !== 'dir') throw storageErrors.notADirectory();
        continue;
      }
      const response = await this.call('MKCOL', this.urlOf(target, true));
      await response.body.dump();
      if (response.statusCode === 201 || response.statusCode === 200) continue;
      if (response.statusCode === 405) throw storageErrors.alreadyExists();
      if (response.statusCode === 409) throw storageErrors.pathNotFound();
      if (response.statusCode === 403)
        throw new AppError(403, 'FORBIDDEN', 'the WebDAV server refused MKCOL');
      throw storageErrors.unavailable(`WebDAV MKCOL answered ${response.statusCode}`);
    }
  }

  /**
   * Checks a move or copy before it is sent: the source exists, and a target in the way may be replaced only
   * when asked to and only file for file (WebDAV would merge folders; the caller falls back instead).
   * Answers whether the source is a folder.
   */
  private async transferSourceIsDir(from: MountPath, to: MountPath, overwrite: boolean): Promise<boolean> {
    const source = await this.stat(from);
    if (!source) throw storageErrors.pathNotFound();
    const target = await this.stat(to);
    if (target) {
      if (!overwrite) throw storageErrors.alreadyExists();
      if (target.type === 'dir' || source.type === 'dir') throw new NativeUnsupported('merge');
    }
    return source.type === 'dir';
  }

  async move(from: MountPath, to: MountPath, options: { overwrite: boolean }): Promise<void> {
    const dir = await this.transferSourceIsDir(from, to, options.overwrite);
    await this.moveUrl(this.urlOf(from, dir), this.urlOf(to, dir), options.overwrite);
  }

  async copy(
    from: MountPath,
    to: MountPath,
    options: { overwrite: boolean; tempName: string },
  ): Promise<void> {
    const dir = await this.transferSourceIsDir(from, to, options.overwrite);
    const temp = this.urlOf(joinPath(parentOf(to), options.tempName), dir);
    try {
      const response = await this.call('COPY', this.urlOf(from, dir), {
        headers: { destination: temp, overwrite: 'F', depth: 'infinity' },
        longBody: true,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) await this.fail(response, 'COPY');
      await response.body.dump();
      await this.moveUrl(temp, this.urlOf(to, dir), options.overwrite);
    } catch (error) {
      await this.remove(temp).catch(() => undefined);
      throw error;
    }
  }

  async delete(path: MountPath, options: { recursive: boolean }): Promise<void> {
    const entry = await this.stat(path);
    if (!entry) throw storageErrors.pathNotFound();
    if (entry.type === 'dir' && !options.recursive) {
      for await (const _child of this.list(path)) throw storageErrors.notEmpty();
    }
    const response = await this.call('DELETE', this.urlOf(path, entry.type === 'dir'));
    if (response.statusCode >= 200 && response.statusCode < 300) {
      await response.body.dump();
      return;
    }
    await this.fail(response, 'DELETE');
  }

  async directLink(): Promise<null> {
    return null;
  }

  async localPath(): Promise<null> {
    return null;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

export const webdavProviderDefinition: ProviderDefinition<WebdavProviderConfig> = {
  kind: 'webdav',
  secrets: ['password'],
  // Reaching into the node's own network (NAS, loopback services) is for administrators only.
  adminOnly: (config) => config.allowPrivateNetwork,
  parse: (config) => {
    const parsed = parseProviderConfig(webdavProviderConfigSchema, config);
    const url = new URL(parsed.url);
    if (url.username || url.password)
      throw badRequest('put credentials in username and password, not the URL');
    return parsed;
  },
  validate: async (config) => {
    if (!config.allowPrivateNetwork && !literalHostAllowed(new URL(config.url).hostname)) {
      throw badRequest(
        'the WebDAV address is private or local: set allowPrivateNetwork (administrators only)',
      );
    }
  },
  create: (config) => new WebdavProvider(config),
};
