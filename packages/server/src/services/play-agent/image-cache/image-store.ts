import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';

/** What the sidecar `<hash>.json` beside each image `<hash>.img` holds. */
const sidecarSchema = z.object({
  key: z.string(),
  contentType: z.string(),
  etag: z.string(),
  size: z.number().int().nonnegative(),
  /** The item whose artwork this is (a signed-in viewer's library access is checked against it). */
  itemId: z.string(),
  lastAccessAt: z.string(),
  expiresAt: z.string(),
});
export type ImageSidecar = z.infer<typeof sidecarSchema>;

export interface StoredImage {
  body: Buffer;
  contentType: string;
  etag: string;
  itemId: string;
}

interface Entry {
  hash: string;
  sidecar: ImageSidecar;
  /** Last access in memory; the sidecar on disk is rewritten at most every SIDECAR_TOUCH_MS. */
  lastAccessMs: number;
  writtenAccessMs: number;
}

/** A hit rewrites the sidecar's last access at most this often (a poster wall must not be a write storm). */
export const SIDECAR_TOUCH_MS = 60_000;
/** The most recently used image bodies are also kept in memory, up to this many bytes in all. */
export const HOT_BODY_BYTES = 32 * 1024 * 1024;

/** What the index knows of a cached image without reading it. */
export type ImageFacts = Omit<StoredImage, 'body'>;

export const etagOf = (body: Buffer): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * The image cache's files in one directory: `<aa>/<hash>.img` and its JSON sidecar `<aa>/<hash>.json`
 * (`aa` = the hash's first two hex digits). The index lives in memory in least-recently-used order and is
 * rebuilt from the sidecars when the store opens, so the cache survives a restart.
 */
export class ImageStore {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bodies of the images read or written last, so a hot poster wall is answered without disk reads. */
  private readonly hot = new LRUCache<string, Buffer>({
    maxSize: HOT_BODY_BYTES,
    sizeCalculation: (body) => Math.max(1, body.length),
  });

  constructor(
    readonly directory: string,
    private readonly now: () => number,
  ) {}

  /** Reads the sidecars on disk; files without a readable sidecar (a write cut short) are removed. */
  async open(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const found: Entry[] = [];
    for (const shard of await readdir(this.directory, { withFileTypes: true })) {
      if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
      const folder = join(this.directory, shard.name);
      const names = new Set(await readdir(folder));
      for (const name of names) {
        const match = /^([0-9a-f]{64})\.(img|json)$/.exec(name);
        if (!match) {
          await rm(join(folder, name), { force: true });
          continue;
        }
        if (match[2] === 'img') {
          if (!names.has(`${match[1]}.json`)) await rm(join(folder, name), { force: true });
          continue;
        }
        const hash = match[1]!;
        const sidecar = await readFile(join(folder, name), 'utf8')
          .then((text) => sidecarSchema.parse(JSON.parse(text)))
          .catch(() => null);
        if (!sidecar || !names.has(`${hash}.img`)) {
          await this.removeFiles(hash);
          continue;
        }
        const lastAccessMs = Date.parse(sidecar.lastAccessAt);
        found.push({ hash, sidecar, lastAccessMs, writtenAccessMs: lastAccessMs });
      }
    }
    found.sort((a, b) => a.lastAccessMs - b.lastAccessMs);
    for (const entry of found) this.add(entry);
  }

  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** The image of `key` (its last access and expiry move forward), or undefined. */
  async get(key: string, retentionMs: number): Promise<StoredImage | undefined> {
    const hash = hashOf(key);
    const entry = await this.live(hash);
    if (!entry) return undefined;
    let body = this.hot.get(hash);
    if (!body) {
      try {
        body = await readFile(this.file(hash, 'img'));
      } catch {
        await this.remove(entry);
        return undefined;
      }
      // Removed or replaced while it was read: answer what was read, keep nothing of it.
      if (this.entries.get(hash) === entry) this.hot.set(hash, body);
    }
    await this.touch(entry, retentionMs);
    return { body, ...this.factsOf(entry) };
  }

  /**
   * What the index holds of `key`, without reading the image (a revalidation that ends in 304): it counts
   * as an access like `get`. Undefined when it is not cached or has expired.
   */
  async facts(key: string, retentionMs: number): Promise<ImageFacts | undefined> {
    const entry = await this.live(hashOf(key));
    if (!entry) return undefined;
    await this.touch(entry, retentionMs);
    return this.factsOf(entry);
  }

  /** The entry of `hash` unless its retention ran out (then it is removed). */
  private async live(hash: string): Promise<Entry | undefined> {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (Date.parse(entry.sidecar.expiresAt) <= this.now()) {
      await this.remove(entry);
      return undefined;
    }
    return entry;
  }

  /** Moves the entry to the most recent end; the sidecar on disk follows at most every SIDECAR_TOUCH_MS. */
  private async touch(entry: Entry, retentionMs: number): Promise<void> {
    const now = this.now();
    this.entries.delete(entry.hash);
    this.entries.set(entry.hash, entry);
    entry.lastAccessMs = now;
    entry.sidecar = {
      ...entry.sidecar,
      lastAccessAt: new Date(now).toISOString(),
      expiresAt: new Date(now + retentionMs).toISOString(),
    };
    if (now - entry.writtenAccessMs >= SIDECAR_TOUCH_MS) {
      entry.writtenAccessMs = now;
      await this.writeAtomic(this.file(entry.hash, 'json'), JSON.stringify(entry.sidecar));
    }
  }

  private factsOf(entry: Entry): ImageFacts {
    const { contentType, etag, itemId } = entry.sidecar;
    return { contentType, etag, itemId };
  }

  /** Stores an image (replacing one of the same key), then evicts the least recently used beyond capacity. */
  async put(
    key: string,
    image: { body: Buffer; contentType: string; itemId: string },
    limits: { retentionMs: number; capacityBytes: number },
  ): Promise<string> {
    const hash = hashOf(key);
    const now = this.now();
    const sidecar: ImageSidecar = {
      key,
      contentType: image.contentType,
      etag: etagOf(image.body),
      size: image.body.length,
      itemId: image.itemId,
      lastAccessAt: new Date(now).toISOString(),
      expiresAt: new Date(now + limits.retentionMs).toISOString(),
    };
    await mkdir(join(this.directory, hash.slice(0, 2)), { recursive: true });
    // Image first, sidecar last: a sidecar always names a complete image.
    await this.writeAtomic(this.file(hash, 'img'), image.body);
    await this.writeAtomic(this.file(hash, 'json'), JSON.stringify(sidecar));
    const previous = this.entries.get(hash);
    if (previous) this.drop(previous);
    this.add({ hash, sidecar, lastAccessMs: now, writtenAccessMs: now });
    this.hot.set(hash, image.body);
    await this.evictTo(limits.capacityBytes);
    return sidecar.etag;
  }

  /** Removes the least recently used images until the total fits `capacityBytes`. */
  async evictTo(capacityBytes: number): Promise<number> {
    let removed = 0;
    for (const entry of this.entries.values()) {
      if (this.bytes <= capacityBytes) break;
      await this.remove(entry);
      removed += 1;
    }
    return removed;
  }

  /** Removes the images whose retention ran out (counted from their last access). */
  async removeExpired(): Promise<number> {
    const now = this.now();
    const expired = [...this.entries.values()].filter((entry) => Date.parse(entry.sidecar.expiresAt) <= now);
    for (const entry of expired) await this.remove(entry);
    return expired.length;
  }

  /** Removes every image and sidecar (the only invalidation there is). */
  async clear(): Promise<void> {
    this.entries.clear();
    this.hot.clear();
    this.bytes = 0;
    for (const shard of await readdir(this.directory).catch(() => [] as string[])) {
      if (/^[0-9a-f]{2}$/.test(shard))
        await rm(join(this.directory, shard), { recursive: true, force: true });
    }
  }

  private add(entry: Entry): void {
    this.entries.set(entry.hash, entry);
    this.bytes += entry.sidecar.size;
  }

  private drop(entry: Entry): void {
    if (this.entries.get(entry.hash) !== entry) return;
    this.entries.delete(entry.hash);
    this.hot.delete(entry.hash);
    this.bytes -= entry.sidecar.size;
  }

  private async remove(entry: Entry): Promise<void> {
    this.drop(entry);
    await this.removeFiles(entry.hash);
  }

  private async removeFiles(hash: string): Promise<void> {
    // Sidecar first: an image without its sidecar is swept at the next open.
    await rm(this.file(hash, 'json'), { force: true });
    await rm(this.file(hash, 'img'), { force: true });
  }

  private file(hash: string, kind: 'img' | 'json'): string {
    return join(this.directory, hash.slice(0, 2), `${hash}.${kind}`);
  }

  private async writeAtomic(path: string, data: string | Buffer): Promise<void> {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, data);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}
