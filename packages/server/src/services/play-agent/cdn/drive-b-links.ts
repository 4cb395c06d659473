import { LRUCache } from 'lru-cache';
import { request } from 'undici';
import { directLinkResponseSchema } from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import type { SampleLink } from './ip-measure.js';

/** A file of a storage node's mount. */
export interface DriveFileRef {
  /** The storage node's base URL. */
  baseUrl: string;
  mountId: string;
  path: string;
}

const TIMEOUT_MS = 15_000;

/**
 * DRIVE_B links of files, asked from the storage node (which assembles them from the file id and the
 * account's token). They carry no expiry, so they are kept until the CDN refuses one (401/403): the caller
 * then asks `get(file, { fresh: true })` once. Identical concurrent requests share one call.
 */
export class DriveBLinks {
  private readonly links = new LRUCache<string, SampleLink>({ max: 10_000 });
  private readonly pending = new Map<string, Promise<SampleLink>>();

  constructor(private readonly serviceToken: string) {}

  async get(file: DriveFileRef, options: { fresh?: boolean } = {}): Promise<SampleLink> {
    const key = `${file.baseUrl}\u0000${file.mountId}\u0000${file.path}`;
    if (options.fresh) this.links.delete(key);
    const cached = this.links.get(key);
    if (cached) return cached;
    let call = this.pending.get(key);
    if (!call) {
      call = this.fetch(file).finally(() => this.pending.delete(key));
      this.pending.set(key, call);
    }
    const link = await call;
    this.links.set(key, link);
    return link;
  }

  private async fetch(file: DriveFileRef): Promise<SampleLink> {
    const url = `${file.baseUrl}/api/storage/internal/mounts/${encodeURIComponent(file.mountId)}/link?path=${encodeURIComponent(file.path)}`;
    const answer = await request(url, {
      headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      throw new Error(`the storage node answered ${answer.statusCode} for a link`);
    }
    const link = directLinkResponseSchema.parse(await answer.body.json());
    return { url: link.url, headers: link.headers };
  }
}
