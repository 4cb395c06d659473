import { LRUCache } from 'lru-cache';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import {
  DEFAULT_DRIVE_USER_AGENT,
  driveBProviderConfigSchema,
  type DriveBProviderConfig,
} from '@svc/contracts';
import { parseProviderConfig, type ProviderDefinition } from '../providers/provider.js';
import { segmentsOf, type MountPath } from '../path-safety.js';
import { storageErrors } from '../storage-errors.js';
import { callJson, checkHost, driveAgent, tokenInvalid } from './drive-http.js';
import type { DriveEntry, DriveLink, DriveProvider } from './drive-provider.js';
import { DriveStorageProvider } from './drive-storage.js';

const DRIVE = 'DRIVE_B';
const PAGE_SIZE = 200;
/** Path → file id answers are reused this long (a renamed folder is found again after it). */
const ID_CACHE_MS = 60_000;

const fileSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  kind: z.enum(['file', 'folder']),
  size: z.number().nonnegative().default(0),
  modified_at: z.string(),
});
type DriveBFile = z.infer<typeof fileSchema>;
const pageSchema = z.object({
  files: z.array(fileSchema),
  next_page_token: z.string().nullable().optional(),
});

function entryOf(file: DriveBFile): DriveEntry {
  const mtime = new Date(file.modified_at);
  return {
    name: file.name,
    type: file.kind === 'folder' ? 'dir' : 'file',
    size: file.kind === 'folder' ? 0 : file.size,
    mtime: Number.isNaN(mtime.getTime()) ? new Date(0) : mtime,
  };
}

/**
 * DRIVE_B (docs/drives.md): files are addressed by id (`GET /v1/files/{id}`, `GET /v1/files?parent_id=`
 * paged with `page_token`, Bearer token); the bytes are at `<scheme>://<cdnHost>/download/<id>?access_token=`,
 * a link assembled here without asking the API. The CDN host has many addresses: the dispatcher of the
 * downloads is injectable so that one preferring a measured address can take its place.
 */
export class DriveB implements DriveProvider {
  readonly kind = 'drive_b';
  readonly cdnHosts: string[];
  private readonly api: Dispatcher;
  private readonly ids = new LRUCache<string, DriveBFile>({ max: 10_000, ttl: ID_CACHE_MS });
  private readonly timeoutMs: number;

  constructor(
    private readonly config: DriveBProviderConfig,
    readonly downloads: Dispatcher = driveAgent(config.allowPrivateNetwork),
  ) {
    this.api = driveAgent(config.allowPrivateNetwork);
    this.cdnHosts = [config.cdnHost.replace(/:[0-9]+$/, '')];
    this.timeoutMs = config.timeoutSeconds * 1000;
  }

  private headers(): Record<string, string> {
    return {
      authorization: `Bearer ${this.config.accessToken}`,
      'user-agent': this.config.userAgent || DEFAULT_DRIVE_USER_AGENT,
    };
  }

  private async get(path: string, signal?: AbortSignal): Promise<unknown> {
    const base = this.config.url.endsWith('/') ? this.config.url : `${this.config.url}/`;
    const url = new URL(path, base).toString();
    checkHost(url, this.config.allowPrivateNetwork, DRIVE);
    const answer = await callJson(this.api, url, {
      method: 'GET',
      headers: this.headers(),
      timeoutMs: this.timeoutMs,
      signal,
      drive: DRIVE,
    });
    if (answer.status === 401) throw tokenInvalid(DRIVE);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw storageErrors.unavailable(`${DRIVE} answered ${answer.status}`);
    return answer.body;
  }

  private async *pages(parentId: string, signal?: AbortSignal): AsyncIterable<DriveBFile[]> {
    let token: string | null | undefined = null;
    do {
      const query = new URLSearchParams({ parent_id: parentId, limit: String(PAGE_SIZE) });
      if (token) query.set('page_token', token);
      const body = await this.get(`v1/files?${query.toString()}`, signal);
      if (body === null) throw storageErrors.pathNotFound();
      const page = pageSchema.safeParse(body);
      if (!page.success) throw storageErrors.unavailable(`${DRIVE} answered a listing it should not`);
      yield page.data.files;
      token = page.data.next_page_token;
    } while (token);
  }

  /** The file record at a path under the root, following names folder by folder; null when absent. */
  private async resolve(path: string, signal?: AbortSignal): Promise<DriveBFile | null> {
    const cached = this.ids.get(path);
    if (cached) return cached;
    const segments = segmentsOf(path as MountPath);
    let current: DriveBFile | null;
    if (segments.length === 0) {
      const body = await this.get(`v1/files/${encodeURIComponent(this.config.rootId)}`, signal);
      const parsed = body === null ? null : fileSchema.safeParse(body);
      if (parsed && !parsed.success)
        throw storageErrors.unavailable(`${DRIVE} answered a file it should not`);
      current = parsed?.data ?? null;
    } else {
      const parent = await this.resolve(segments.slice(0, -1).join('/'), signal);
      if (!parent || parent.kind !== 'folder') return null;
      const name = segments.at(-1);
      current = null;
      for await (const files of this.pages(parent.id, signal)) {
        current = files.find((file) => file.name === name) ?? null;
        if (current) break;
      }
    }
    if (current) this.ids.set(path, current);
    return current;
  }

  async check(signal?: AbortSignal): Promise<void> {
    const root = await this.resolve('', signal);
    if (!root) throw storageErrors.pathNotFound();
    if (root.kind !== 'folder') throw storageErrors.notADirectory();
  }

  async stat(path: string, signal?: AbortSignal): Promise<DriveEntry | null> {
    const file = await this.resolve(path, signal);
    return file ? entryOf(file) : null;
  }

  async *list(path: string, signal?: AbortSignal): AsyncIterable<DriveEntry> {
    const folder = await this.resolve(path, signal);
    if (!folder) throw storageErrors.pathNotFound();
    if (folder.kind !== 'folder') throw storageErrors.notADirectory();
    for await (const files of this.pages(folder.id, signal)) {
      for (const file of files) {
        this.ids.set(path === '' ? file.name : `${path}/${file.name}`, file);
        yield entryOf(file);
      }
    }
  }

  /** Assembled here: no call to the API beyond finding the file's id, and no expiry. */
  async directLink(path: string, options: { userAgent?: string; signal?: AbortSignal }): Promise<DriveLink> {
    const file = await this.resolve(path, options.signal);
    if (!file) throw storageErrors.pathNotFound();
    if (file.kind !== 'file') throw storageErrors.isADirectory();
    const query = new URLSearchParams({ access_token: this.config.accessToken });
    const { size, mtime } = entryOf(file);
    return {
      url: `${this.config.cdnScheme}://${this.config.cdnHost}/download/${encodeURIComponent(file.id)}?${query.toString()}`,
      expiresAt: null,
      headers: { 'user-agent': options.userAgent || this.config.userAgent || DEFAULT_DRIVE_USER_AGENT },
      file: { size, mtime },
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.api.close(), this.downloads.close()]);
  }
}

export const driveBProviderDefinition: ProviderDefinition<DriveBProviderConfig> = {
  kind: 'drive_b',
  secrets: ['accessToken'],
  adminOnly: (config) => config.allowPrivateNetwork,
  parse: (config) => parseProviderConfig(driveBProviderConfigSchema, config),
  validate: async (config) => checkHost(config.url, config.allowPrivateNetwork, DRIVE),
  create: (config) => new DriveStorageProvider(new DriveB(config)),
};
