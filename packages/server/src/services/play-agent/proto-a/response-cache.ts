import { LRUCache } from 'lru-cache';

/**
 * The policy's response cache: JSON answers of the browse routes per user and URL, for
 * metadataCacheTtlSeconds. A user's entries are dropped when that user changes played, favourite or
 * position data through this node, so their own changes show at once.
 */
export class ResponseCache {
  private readonly entries = new LRUCache<string, { userId: string; body: unknown }>({
    max: 5_000,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (entry) => Math.max(1, JSON.stringify(entry.body).length),
    ttlAutopurge: false,
  });
  private enabled = false;
  private ttlMs = 300_000;

  configure(enabled: boolean, ttlSeconds: number): void {
    if (!enabled) this.entries.clear();
    this.enabled = enabled;
    this.ttlMs = ttlSeconds * 1000;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  async through<T>(userId: string, url: string, load: () => Promise<T>): Promise<T> {
    if (!this.enabled) return load();
    const key = `${userId}\u0000${url}`;
    const hit = this.entries.get(key);
    if (hit) return hit.body as T;
    const body = await load();
    this.entries.set(key, { userId, body }, { ttl: this.ttlMs });
    return body;
  }

  forgetUser(userId: string): void {
    for (const [key, entry] of this.entries.entries()) if (entry.userId === userId) this.entries.delete(key);
  }
}
