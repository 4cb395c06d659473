import type { BrowseQuery, BrowseResponse, StorageEntry, WalkLine } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { MountsService, OpenMount } from '../mounts.service.js';
import {
  isTempName,
  isUsableName,
  joinPath,
  nameOf,
  parentOf,
  parseEntryName,
  type MountPath,
} from '../path-safety.js';
import type { ProviderEntry } from '../providers/index.js';
import { storageErrors } from '../storage-errors.js';

/** How long a folder listing is reused for paging and re-sorting (changes made here drop it at once). */
const LISTING_TTL_MS = 2_000;
const LISTING_CACHE_SIZE = 16;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

interface CachedListing {
  at: number;
  entries: ProviderEntry[];
  sorted: Map<string, ProviderEntry[]>;
}

function compareBy(sort: BrowseQuery['sort']): (a: ProviderEntry, b: ProviderEntry) => number {
  const byName = (a: ProviderEntry, b: ProviderEntry) =>
    collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  if (sort === 'size') return (a, b) => a.size - b.size || byName(a, b);
  if (sort === 'mtime') return (a, b) => a.mtime.getTime() - b.mtime.getTime() || byName(a, b);
  return byName;
}

/** Folders first, then by the key; `desc` reverses the key order within each group. */
export function sortEntries(
  entries: ProviderEntry[],
  sort: BrowseQuery['sort'],
  order: BrowseQuery['order'],
) {
  const compare = compareBy(sort);
  const direction = order === 'desc' ? -1 : 1;
  return [...entries].sort((a, b) => {
    if (a.type !== b.type) return a.type === 'dir' ? -1 : 1;
    return direction * compare(a, b);
  });
}

export function entryView(dir: MountPath, entry: ProviderEntry): StorageEntry {
  return {
    name: entry.name,
    path: joinPath(dir, entry.name),
    type: entry.type,
    size: entry.size,
    mtime: entry.mtime.toISOString(),
  };
}

/** Browsing and the one-step file operations (mkdir, rename, delete); copies and moves are transfers. */
export class FilesService {
  private readonly listings = new Map<string, CachedListing>();

  constructor(
    private readonly mounts: MountsService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Drops cached listings of a mount after a change made through this node. */
  invalidate(mountId: string): void {
    for (const key of this.listings.keys()) if (key.startsWith(`${mountId}\0`)) this.listings.delete(key);
  }

  private async listing(mount: OpenMount, dir: MountPath): Promise<CachedListing> {
    const key = `${mount.id}\0${dir}`;
    const now = this.clock.now();
    const cached = this.listings.get(key);
    if (cached && now - cached.at < LISTING_TTL_MS) return cached;
    const entries: ProviderEntry[] = [];
    const folder = await mount.provider.stat(dir);
    if (!folder) throw storageErrors.pathNotFound();
    if (folder.type !== 'dir') throw storageErrors.notADirectory();
    for await (const entry of mount.provider.list(dir)) {
      if (!isTempName(entry.name)) entries.push(entry);
    }
    const listing: CachedListing = { at: now, entries, sorted: new Map() };
    this.listings.delete(key);
    this.listings.set(key, listing);
    while (this.listings.size > LISTING_CACHE_SIZE) {
      const oldest = this.listings.keys().next().value;
      if (oldest === undefined) break;
      this.listings.delete(oldest);
    }
    return listing;
  }

  async browse(mountId: string, dir: MountPath, query: BrowseQuery): Promise<BrowseResponse> {
    const mount = await this.mounts.get(mountId);
    const listing = await this.listing(mount, dir);
    const sortKey = `${query.sort}:${query.order}`;
    let sorted = listing.sorted.get(sortKey);
    if (!sorted) {
      sorted = sortEntries(listing.entries, query.sort, query.order);
      listing.sorted.set(sortKey, sorted);
    }
    const offset = (query.page - 1) * query.pageSize;
    return {
      path: dir,
      entries: sorted.slice(offset, offset + query.pageSize).map((entry) => entryView(dir, entry)),
      total: sorted.length,
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  async stat(mountId: string, path: MountPath): Promise<StorageEntry> {
    const mount = await this.mounts.get(mountId);
    const entry = await mount.provider.stat(path);
    if (!entry) throw storageErrors.pathNotFound();
    return entryView(parentOf(path), { ...entry, name: path === '' ? '' : nameOf(path) });
  }

  async mkdir(mountId: string, path: MountPath, parents: boolean): Promise<StorageEntry> {
    if (path === '') throw storageErrors.alreadyExists();
    const mount = await this.mounts.get(mountId);
    if (!parents) {
      const parent = await mount.provider.stat(parentOf(path));
      if (!parent) throw storageErrors.pathNotFound();
      if (parent.type !== 'dir') throw storageErrors.notADirectory();
    }
    await mount.provider.mkdir(path, { parents });
    this.invalidate(mountId);
    return this.stat(mountId, path);
  }

  async rename(mountId: string, path: MountPath, newNameRaw: string): Promise<StorageEntry> {
    if (path === '') throw storageErrors.invalidTarget('the mount root cannot be renamed');
    const newName = parseEntryName(newNameRaw);
    const target = joinPath(parentOf(path), newName);
    if (target === path) return this.stat(mountId, path);
    const mount = await this.mounts.get(mountId);
    if (!(await mount.provider.stat(path))) throw storageErrors.pathNotFound();
    await mount.provider.move(path, target, { overwrite: false });
    this.invalidate(mountId);
    this.logger.info({ mountId, from: path, to: target }, 'renamed');
    return this.stat(mountId, target);
  }

  async delete(mountId: string, path: MountPath, recursive: boolean): Promise<void> {
    if (path === '') throw storageErrors.invalidTarget('the mount root cannot be deleted');
    const mount = await this.mounts.get(mountId);
    await mount.provider.delete(path, { recursive });
    this.invalidate(mountId);
    this.logger.info({ mountId, path, recursive }, 'deleted');
  }

  /**
   * Every entry below `dir`, depth first, a folder before its contents, names in natural order; temp
   * files are skipped and linked folders are not descended into. Paths are relative to the mount root.
   */
  async *walk(mount: OpenMount, dir: MountPath, signal?: AbortSignal): AsyncGenerator<WalkLine> {
    const stack: MountPath[] = [dir];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const entries: ProviderEntry[] = [];
      for await (const entry of mount.provider.list(current, signal)) {
        if (!isTempName(entry.name) && isUsableName(entry.name)) entries.push(entry);
      }
      entries.sort((a, b) => collator.compare(a.name, b.name));
      const below: MountPath[] = [];
      for (const entry of entries) {
        signal?.throwIfAborted();
        const path = joinPath(current, entry.name);
        yield { path, type: entry.type, size: entry.size, mtime: entry.mtime.toISOString() };
        if (entry.type === 'dir' && !entry.link) below.push(path);
      }
      // Depth first in name order: push in reverse so the first folder is walked next.
      for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]!);
    }
  }
}
