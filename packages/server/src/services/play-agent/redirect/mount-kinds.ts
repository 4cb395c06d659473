import { LRUCache } from 'lru-cache';
import { request } from 'undici';
import { internalMountListSchema } from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** A storage node's mount list is reused this long (a new mount is seen after it). */
const KINDS_CACHE_MS = 30_000;

/** The provider kind of each mount of a storage node, from its internal mount list (cached). */
export class MountKinds {
  private readonly nodes = new LRUCache<string, Promise<Map<string, string>>>({
    max: 1_000,
    ttl: KINDS_CACHE_MS,
  });

  constructor(private readonly serviceToken: string) {}

  /** The kind of a mount, or null when the node does not list it (or cannot be asked). */
  async kindOf(baseUrl: string, mountId: string): Promise<string | null> {
    let kinds = this.nodes.get(baseUrl);
    if (!kinds) {
      kinds = this.fetch(baseUrl);
      this.nodes.set(baseUrl, kinds);
      // A failed answer is not kept: the next play asks again.
      kinds.catch(() => this.nodes.delete(baseUrl));
    }
    try {
      return (await kinds).get(mountId) ?? null;
    } catch {
      return null;
    }
  }

  private async fetch(baseUrl: string): Promise<Map<string, string>> {
    const answer = await request(`${baseUrl}/api/storage/internal/mounts`, {
      headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      throw new Error(`the storage node answered ${answer.statusCode}`);
    }
    const list = internalMountListSchema.parse(await answer.body.json());
    return new Map(list.mounts.map((mount) => [mount.id, mount.provider]));
  }
}
