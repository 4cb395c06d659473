import { z } from 'zod';
import {
  DEFAULT_DRIVE_USER_AGENT,
  driveAProviderConfigSchema,
  type DriveAProviderConfig,
} from '@svc/contracts';
import type { Agent } from 'undici';
import { parseProviderConfig, type ProviderDefinition } from '../providers/provider.js';
import { storageErrors } from '../storage-errors.js';
import { callJson, checkHost, driveAgent, tokenInvalid, underRoot } from './drive-http.js';
import type { DriveEntry, DriveLink, DriveProvider } from './drive-provider.js';
import { DriveStorageProvider } from './drive-storage.js';
import { linkExpiry } from './link-expiry.js';

const DRIVE = 'DRIVE_A';
const PAGE_SIZE = 200;

/** The answer envelope of every call: `code` 200 is success, 401 a refused token (HTTP status stays 200). */
const envelopeSchema = z.object({ code: z.number(), message: z.string().default(''), data: z.unknown() });
const objectSchema = z.object({
  name: z.string(),
  size: z.number().nonnegative(),
  is_dir: z.boolean(),
  modified: z.string(),
});
const getDataSchema = objectSchema.extend({ raw_url: z.string().default('') });
const listDataSchema = z.object({ content: z.array(objectSchema).nullable(), total: z.number().int() });

function entryOf(object: z.infer<typeof objectSchema>): DriveEntry {
  const mtime = new Date(object.modified);
  return {
    name: object.name,
    type: object.is_dir ? 'dir' : 'file',
    size: object.is_dir ? 0 : object.size,
    mtime: Number.isNaN(mtime.getTime()) ? new Date(0) : mtime,
  };
}

/**
 * DRIVE_A: an OpenList/Alist-style API (docs/drives.md). `POST /api/fs/list` and `POST /api/fs/get` with
 * the account token in `Authorization`; `fs/get` answers a signed `raw_url` whose expiry parameter says
 * how long it works.
 */
export class DriveA implements DriveProvider {
  readonly kind = 'drive_a';
  readonly cdnHosts: string[] = [];
  readonly downloads: Agent;
  private readonly api: Agent;
  private readonly timeoutMs: number;

  constructor(private readonly config: DriveAProviderConfig) {
    this.api = driveAgent(config.allowPrivateNetwork);
    this.downloads = driveAgent(config.allowPrivateNetwork);
    this.timeoutMs = config.timeoutSeconds * 1000;
  }

  private userAgent(override?: string): string {
    return override || this.config.userAgent || DEFAULT_DRIVE_USER_AGENT;
  }

  /** One call; the `data` of a successful answer, null when the object does not exist. */
  private async call(
    action: 'get' | 'list',
    body: Record<string, unknown>,
    options: { userAgent?: string; signal?: AbortSignal },
  ): Promise<unknown> {
    const url = new URL(
      `api/fs/${action}`,
      this.config.url.endsWith('/') ? this.config.url : `${this.config.url}/`,
    );
    checkHost(url.toString(), this.config.allowPrivateNetwork, DRIVE);
    const answer = await callJson(this.api, url.toString(), {
      method: 'POST',
      headers: { authorization: this.config.token, 'user-agent': this.userAgent(options.userAgent) },
      body: { ...body, password: this.config.folderPassword ?? '' },
      timeoutMs: this.timeoutMs,
      signal: options.signal,
      drive: DRIVE,
    });
    if (answer.status === 401) throw tokenInvalid(DRIVE);
    const envelope = envelopeSchema.safeParse(answer.body);
    if (answer.status !== 200 || !envelope.success) {
      throw storageErrors.unavailable(`${DRIVE} answered ${answer.status} without its envelope`);
    }
    const { code, message, data } = envelope.data;
    if (code === 200) return data;
    if (code === 401) throw tokenInvalid(DRIVE);
    if (code === 404 || /not found/i.test(message)) return null;
    throw storageErrors.unavailable(`${DRIVE} answered code ${code}`);
  }

  async check(signal?: AbortSignal): Promise<void> {
    const root = await this.stat('', signal);
    if (!root) throw storageErrors.pathNotFound();
    if (root.type !== 'dir') throw storageErrors.notADirectory();
  }

  async stat(path: string, signal?: AbortSignal): Promise<DriveEntry | null> {
    const data = await this.call('get', { path: underRoot(this.config.root, path) }, { signal });
    if (data === null) return null;
    const parsed = objectSchema.safeParse(data);
    if (!parsed.success) throw storageErrors.unavailable(`${DRIVE} answered fs/get without an object`);
    return entryOf(parsed.data);
  }

  async *list(path: string, signal?: AbortSignal): AsyncIterable<DriveEntry> {
    const drivePath = underRoot(this.config.root, path);
    let seen = 0;
    for (let page = 1; ; page += 1) {
      const body = { path: drivePath, page, per_page: PAGE_SIZE, refresh: false };
      const data = await this.call('list', body, { signal });
      if (data === null) {
        if (page === 1 && (await this.stat(path, signal))?.type === 'file')
          throw storageErrors.notADirectory();
        throw storageErrors.pathNotFound();
      }
      const parsed = listDataSchema.safeParse(data);
      if (!parsed.success) throw storageErrors.unavailable(`${DRIVE} answered fs/list without a listing`);
      const content = parsed.data.content ?? [];
      for (const object of content) yield entryOf(object);
      seen += content.length;
      if (content.length === 0 || seen >= parsed.data.total) return;
    }
  }

  async directLink(path: string, options: { userAgent?: string; signal?: AbortSignal }): Promise<DriveLink> {
    const userAgent = this.userAgent(options.userAgent);
    const data = await this.call(
      'get',
      { path: underRoot(this.config.root, path) },
      { ...options, userAgent },
    );
    if (data === null) throw storageErrors.pathNotFound();
    const parsed = getDataSchema.safeParse(data);
    if (!parsed.success) throw storageErrors.unavailable(`${DRIVE} answered fs/get without an object`);
    if (parsed.data.is_dir) throw storageErrors.isADirectory();
    if (!/^https?:\/\//i.test(parsed.data.raw_url)) {
      throw storageErrors.unavailable(`${DRIVE} gave no direct link for this file`);
    }
    const entry = entryOf(parsed.data);
    return {
      url: parsed.data.raw_url,
      expiresAt: linkExpiry(parsed.data.raw_url),
      headers: { 'user-agent': userAgent },
      file: { size: entry.size, mtime: entry.mtime },
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.api.close(), this.downloads.close()]);
  }
}

export const driveAProviderDefinition: ProviderDefinition<DriveAProviderConfig> = {
  kind: 'drive_a',
  secrets: ['token', 'folderPassword'],
  adminOnly: (config) => config.allowPrivateNetwork,
  parse: (config) => parseProviderConfig(driveAProviderConfigSchema, config),
  validate: async (config) => checkHost(config.url, config.allowPrivateNetwork, DRIVE),
  create: (config) => new DriveStorageProvider(new DriveA(config)),
};
