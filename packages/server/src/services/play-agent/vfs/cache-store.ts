import { createHash } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { CacheEntry, sameVersion, type EntryIdentity } from './cache-entry.js';
import { planEviction, type EvictionPlan } from './eviction.js';
import { SpaceLedger, type Reservation } from './space-ledger.js';
import { readIndexItem, type IndexItem, type StoredEntryInfo } from './store-index.js';

export type { StoredEntryInfo } from './store-index.js';

/**
 * The video cache directory: one folder per entry (cache-entry.ts), an index of all entries (bytes, last
 * access, readers), the space ledger, and removal (singly, all, eviction). An entry is open only while it
 * has readers; its folder stays on disk in between.
 */

export interface StoreOptions {
  directory: string;
  capacityBytes: number;
  /** Clock (tests move it). */
  now?: () => number;
  /**
   * An entry whose last reader left stays open this long (default 0: closed at once), so the next
   * request of the same file (the probe tool and a player ask many in a row) reads it without opening
   * it again. The node's cache uses LINGER_MS.
   */
  lingerMs?: number;
}

/** How long the node's cache keeps an entry without readers open (its files, its journal). */
export const LINGER_MS = 10_000;

export interface StoreUsage {
  capacityBytes: number;
  usedBytes: number;
  inFlightBytes: number;
  entries: number;
  entriesInUse: number;
}

export type RemoveResult = 'removed' | 'in-use' | 'absent';

/** Folder name of an entry: a hash of the source id (paths can be long and hold any character). */
export function entryKey(sourceId: string): string {
  return createHash('sha256').update(sourceId).digest('hex').slice(0, 32);
}

export class CacheStore {
  readonly ledger: SpaceLedger;
  private readonly index = new Map<string, IndexItem>();
  private readonly now: () => number;
  /** Entries without readers that are still open, and the timer that closes each. */
  private readonly lingering = new Map<CacheEntry, NodeJS.Timeout>();

  private constructor(
    readonly directory: string,
    capacityBytes: number,
    now: () => number,
    private readonly lingerMs: number,
  ) {
    this.ledger = new SpaceLedger(capacityBytes);
    this.now = now;
  }

  /** Opens the directory and indexes the entries found there; unreadable folders are removed. */
  static async open(options: StoreOptions): Promise<CacheStore> {
    const store = new CacheStore(
      options.directory,
      options.capacityBytes,
      options.now ?? Date.now,
      options.lingerMs ?? 0,
    );
    await mkdir(options.directory, { recursive: true });
    for (const name of await readdir(options.directory)) {
      if (!/^[0-9a-f]{32}$/.test(name)) continue;
      const folder = path.join(options.directory, name);
      const item = await readIndexItem(folder, name);
      if (item) {
        store.index.set(name, item);
        store.ledger.account(item.bytes);
        continue;
      }
      await rm(folder, { recursive: true, force: true });
    }
    return store;
  }

  set capacityBytes(bytes: number) {
    this.ledger.capacity = bytes;
  }

  /** Opens the entry of a file for one reader; `release` must follow. */
  async acquire(identity: EntryIdentity): Promise<CacheEntry> {
    const key = entryKey(identity.sourceId);
    let item = this.index.get(key);
    if (!item) {
      item = {
        key,
        sourceId: identity.sourceId,
        name: identity.name,
        size: identity.size,
        bytes: 0,
        ranges: [],
        writeError: null,
        smartRanges: null,
        item: identity.item ?? null,
        lastAccessAt: this.now(),
        open: null,
        opening: null,
        users: 0,
      };
      this.index.set(key, item);
    }
    item.users++;
    try {
      const entry = await this.openItem(item, identity);
      entry.users = item.users;
      entry.touch(this.now());
      item.lastAccessAt = entry.meta.lastAccessAt;
      return entry;
    } catch (error) {
      item.users--;
      throw error;
    }
  }

  private async openItem(item: IndexItem, identity: EntryIdentity): Promise<CacheEntry> {
    const current = item.open;
    if (current) this.stopLingering(current);
    if (current && !current.closed && sameVersion(current.meta, identity)) return current;
    // Another version while readers of the old one still stream: they keep it; this reader goes uncached.
    if (current && !current.closed && item.users > 1) {
      throw new Error('the entry holds another version of the file and is in use');
    }
    if (item.opening) {
      const shared = await item.opening;
      if (sameVersion(shared.meta, identity)) return shared;
    }
    item.opening = (async () => {
      if (item.open) await item.open.close();
      const entry = await CacheEntry.open(
        path.join(this.directory, item.key),
        item.key,
        identity,
        this.now(),
      );
      // Another version of the file empties the entry: correct the books.
      this.ledger.forget(item.bytes);
      item.bytes = entry.cachedBytes;
      item.ranges = entry.recorded;
      this.ledger.account(item.bytes);
      Object.assign(item, {
        sourceId: identity.sourceId,
        name: identity.name,
        size: identity.size,
        item: entry.meta.item ?? null,
      });
      item.open = entry;
      return entry;
    })().finally(() => (item.opening = null));
    return item.opening;
  }

  /**
   * A reader is done. The last one records what is pending and settles the books; the entry then stays
   * open for `lingerMs` (a next reader takes it as it is) and is closed after that.
   */
  async release(entry: CacheEntry): Promise<void> {
    const item = this.index.get(entry.key);
    if (!item) return;
    item.users = Math.max(0, item.users - 1);
    entry.users = item.users;
    entry.touch(this.now());
    item.lastAccessAt = entry.meta.lastAccessAt;
    if (item.users > 0 || item.open !== entry) return;
    if (this.lingerMs <= 0) return this.closeItem(item, entry);
    await entry.flush().catch(() => undefined);
    // A write failure is saved at once (the badge outlives a restart); the last access waits for the close.
    if (entry.meta.writeError) await entry.saveMeta();
    this.settleBooks(item, entry);
    const timer = setTimeout(() => {
      this.lingering.delete(entry);
      if (item.open === entry && item.users === 0) void this.closeItem(item, entry);
    }, this.lingerMs);
    timer.unref();
    this.lingering.set(entry, timer);
  }

  private async closeItem(item: IndexItem, entry: CacheEntry): Promise<void> {
    this.stopLingering(entry);
    if (item.open === entry) item.open = null;
    await entry.close();
    this.settleBooks(item, entry);
  }

  private stopLingering(entry: CacheEntry): void {
    const timer = this.lingering.get(entry);
    if (timer) clearTimeout(timer);
    this.lingering.delete(entry);
  }

  /** The index's books of an entry from the entry itself (bytes, ranges, badge facts). */
  private settleBooks(item: IndexItem, entry: CacheEntry): void {
    this.ledger.forget(item.bytes);
    item.bytes = entry.cachedBytes;
    item.ranges = entry.recorded;
    item.writeError = entry.meta.writeError ?? null;
    item.smartRanges = entry.meta.smartRanges ?? null;
    this.ledger.account(item.bytes);
  }

  /** Bytes consumed from a reservation were written to an entry (before they are verified). */
  noteWritten(entry: CacheEntry, bytes: number): void {
    const item = this.index.get(entry.key);
    if (item) item.bytes += bytes;
  }

  /**
   * Reserves room for bytes about to be fetched and written, evicting least recently used entries (never
   * one in use) when needed. Null when it cannot fit: the caller then streams without writing.
   */
  async reserve(bytes: number): Promise<Reservation | null> {
    const first = this.ledger.tryReserve(bytes);
    if (first) return first;
    const plan = this.plan(bytes, null);
    for (const key of plan.lru) await this.removeFolder(key);
    return this.ledger.tryReserve(bytes);
  }

  private plan(wanted: number, retentionMs: number | null): EvictionPlan {
    return planEviction({
      entries: [...this.index.values()].map((item) => ({
        key: item.key,
        bytes: item.bytes,
        lastAccessAt: item.lastAccessAt,
        inUse: item.users > 0 || item.opening !== null,
      })),
      held: this.ledger.used + this.ledger.inFlight,
      capacity: this.ledger.capacity,
      wanted,
      now: this.now(),
      retentionMs,
    });
  }

  /** The periodic cleanup: removes expired entries, then least recently used ones beyond the capacity. */
  async evict(retentionMs: number | null): Promise<{ expired: string[]; lru: string[] }> {
    const plan = this.plan(0, retentionMs);
    for (const key of [...plan.expired, ...plan.lru]) await this.removeFolder(key);
    return { expired: plan.expired, lru: plan.lru };
  }

  /** Deletes one entry; an entry in use is refused. */
  async remove(key: string): Promise<RemoveResult> {
    const item = this.index.get(key);
    if (!item) return 'absent';
    if (item.users > 0 || item.opening) return 'in-use';
    await this.removeFolder(key);
    return 'removed';
  }

  /** Deletes every entry not in use; returns how many were removed and how many were kept. */
  async removeAll(): Promise<{ removed: number; inUse: number }> {
    let removed = 0;
    let inUse = 0;
    for (const key of [...this.index.keys()]) {
      if ((await this.remove(key)) === 'removed') removed++;
      else inUse++;
    }
    return { removed, inUse };
  }

  private async removeFolder(key: string): Promise<void> {
    const item = this.index.get(key);
    if (!item || item.users > 0 || item.opening) return;
    // An entry kept open after its last reader closes before its folder goes.
    if (item.open) await this.closeItem(item, item.open);
    if (item.users > 0 || item.opening) return;
    this.index.delete(key);
    this.ledger.forget(item.bytes);
    await rm(path.join(this.directory, key), { recursive: true, force: true });
  }

  usage(): StoreUsage {
    const items = [...this.index.values()];
    return {
      capacityBytes: this.ledger.capacity,
      usedBytes: this.ledger.used,
      inFlightBytes: this.ledger.inFlight,
      entries: items.length,
      entriesInUse: items.filter((item) => item.users > 0).length,
    };
  }

  entries(): StoredEntryInfo[] {
    return [...this.index.values()].map((item) => {
      const open = item.open;
      return {
        key: item.key,
        sourceId: item.sourceId,
        name: item.name,
        size: item.size,
        cachedBytes: open ? open.cachedBytes : item.bytes,
        ranges: open ? open.recorded : item.ranges,
        lastAccessAt: item.lastAccessAt,
        inUse: item.users > 0,
        writeError: open ? (open.meta.writeError ?? null) : item.writeError,
        smartRanges: open ? (open.meta.smartRanges ?? null) : item.smartRanges,
        item: open ? (open.meta.item ?? null) : item.item,
      };
    });
  }

  /** Closes open entries (their readers are gone: the node is stopping). */
  async close(): Promise<void> {
    await Promise.all(
      [...this.index.values()].map(async (item) => {
        const entry = item.open;
        item.open = null;
        if (entry) this.stopLingering(entry);
        await entry?.close();
      }),
    );
  }
}
