import { mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ByteRange } from '../../../platform/http/file-delivery/range.js';
import { EntryFills } from './entry-fills.js';
import { RangeJournal } from './range-journal.js';
import { normalize, totalBytes, union, type RangeSet } from './range-set.js';

/**
 * One cached file: a folder holding `data` (a sparse file as large as the source, bytes at their own
 * offsets), `ranges` (the journal of verified ranges, range-journal.ts) and `meta.json` (which source
 * version it holds, last access). Bytes are written with positional writes and become servable only once
 * `flush()` has synced the data file and appended their ranges to the journal.
 */

/** The library item a file belongs to, for grouping entries by episode in the entry list. */
export interface EntryItem {
  itemId?: string | null;
  seriesName?: string | null;
  seasonNumber?: number | null;
  episodeNumber?: number | null;
}

/** Which version of which file an entry holds: a different size, mtime or ETag starts the entry anew. */
export interface EntryIdentity {
  /** Stable id of the source file (e.g. `<mountId>:<path>`). */
  sourceId: string;
  /** Display name (file name or title), for the entry list. */
  name: string;
  size: number;
  mtimeMs: number | null;
  etag: string | null;
  /** Library facts (not part of the version: a changed item is saved over the old one). */
  item?: EntryItem | null;
}

export interface EntryMeta extends EntryIdentity {
  version: 1;
  createdAt: number;
  lastAccessAt: number;
  /** Ranges ffprobe was seen reading (smart probe); set once per version of the file. */
  probeRanges?: ByteRange[] | null;
  /** The ranges of the smart startup plan (container index found), null for a basic plan. */
  smartRanges?: ByteRange[] | null;
  /** The last write failure (pass-through), cleared when a later flush records bytes. */
  writeError?: string | null;
}

/** The disk is full (or over quota): the entry stops writing and its readers go on from the source. */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function sameVersion(meta: EntryMeta, identity: EntryIdentity): boolean {
  return (
    meta.version === 1 &&
    meta.sourceId === identity.sourceId &&
    meta.size === identity.size &&
    meta.mtimeMs === identity.mtimeMs &&
    meta.etag === identity.etag
  );
}

async function readMeta(file: string): Promise<EntryMeta | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EntryMeta;
  } catch {
    return null;
  }
}

export class CacheEntry {
  private ranges: ByteRange[];
  /** Written but not yet flushed nor recorded: never served. */
  private pending: ByteRange[] = [];
  private appendsSinceCompact = 0;
  /** Serializes writes and flushes of this entry. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Open readers; an entry in use is never evicted nor deleted. */
  users = 0;
  /** Set after ENOSPC (or another write failure): nothing more is written; reads still work. */
  passThrough = false;
  writeError: string | null = null;
  closed = false;
  /** Bytes being fetched into the entry right now (entry-fills.ts). */
  readonly fills = new EntryFills();

  private constructor(
    readonly key: string,
    readonly folder: string,
    readonly meta: EntryMeta,
    private readonly data: FileHandle,
    private readonly journal: RangeJournal,
    ranges: ByteRange[],
  ) {
    this.ranges = ranges;
  }

  /**
   * Opens (or creates) the entry in `folder`. An entry of another version of the file, or with unreadable
   * metadata, is emptied first: its bytes belong to a file that no longer exists.
   */
  static async open(folder: string, key: string, identity: EntryIdentity, now: number): Promise<CacheEntry> {
    await mkdir(folder, { recursive: true });
    const metaFile = path.join(folder, 'meta.json');
    let meta = await readMeta(metaFile);
    if (!meta || !sameVersion(meta, identity)) {
      await rm(path.join(folder, 'ranges'), { force: true });
      await rm(path.join(folder, 'data'), { force: true });
      meta = { version: 1, ...identity, createdAt: now, lastAccessAt: now };
      await writeMetaFile(metaFile, meta);
    } else if (identity.item && JSON.stringify(identity.item) !== JSON.stringify(meta.item ?? null)) {
      meta.item = identity.item;
      await writeMetaFile(metaFile, meta);
    }
    const data = await open(path.join(folder, 'data'), 'a+').then(async (handle) => {
      // 'a+' creates without truncating; reopen read-write so positional writes land at their offset.
      await handle.close();
      return open(path.join(folder, 'data'), 'r+');
    });
    try {
      const { journal, ranges } = await RangeJournal.open(path.join(folder, 'ranges'), identity.size);
      return new CacheEntry(key, folder, meta, data, journal, ranges);
    } catch (error) {
      await data.close();
      throw error;
    }
  }

  /** The verified ranges: only these are ever read back. */
  get recorded(): RangeSet {
    return this.ranges;
  }

  get cachedBytes(): number {
    return totalBytes(this.ranges);
  }

  get pendingBytes(): number {
    return totalBytes(this.pending);
  }

  touch(now: number): void {
    this.meta.lastAccessAt = Math.max(this.meta.lastAccessAt, now);
  }

  /** Reads recorded bytes; the caller asks only for bytes inside `recorded`. */
  async read(target: Buffer, length: number, position: number): Promise<number> {
    const { bytesRead } = await this.data.read(target, 0, length, position);
    return bytesRead;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes bytes at their offset (not yet servable). Resolves false when the entry does not take them
   * (pass-through, closed); a full disk turns the entry into pass-through and resolves false too.
   */
  write(position: number, bytes: Buffer): Promise<boolean> {
    return this.serial(async () => {
      if (this.passThrough || this.closed) return false;
      try {
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await this.data.write(bytes, done, bytes.length - done, position + done);
          done += bytesWritten;
        }
      } catch (error) {
        // The bytes written before this failure are complete: record them if the journal still takes them.
        await this.flushNow();
        this.fail(error);
        return false;
      }
      this.pending = union(this.pending, { start: position, end: position + bytes.length - 1 });
      return true;
    });
  }

  /** Syncs the data file, then records what was written: from here on those bytes are served. */
  flush(): Promise<ByteRange[]> {
    return this.serial(() => this.flushNow());
  }

  private async flushNow(): Promise<ByteRange[]> {
    if (this.pending.length === 0 || this.closed || this.passThrough) return [];
    const added = this.pending;
    this.pending = [];
    try {
      await this.data.datasync();
      await this.journal.append(added);
    } catch (error) {
      this.fail(error);
      return [];
    }
    this.ranges = union(this.ranges, added);
    if (this.meta.writeError) this.meta.writeError = null;
    this.fills.wake();
    if (++this.appendsSinceCompact >= 256) {
      this.appendsSinceCompact = 0;
      await this.journal.compact(this.ranges).catch((error: unknown) => this.fail(error));
    }
    return added;
  }

  private fail(error: unknown): void {
    this.passThrough = true;
    this.pending = [];
    this.writeError = isNoSpace(error) ? 'ENOSPC' : String(error);
    this.meta.writeError = this.writeError;
    this.fills.wake();
  }

  /** Recorded, written and being-fetched bytes: what a new fill must not fetch again. */
  get claimed(): RangeSet {
    return union(this.ranges, this.pending, this.fills.ranges);
  }

  /** Records the startup plan (its ranges when smart) for the badge; saved with the metadata. */
  setSmartRanges(ranges: ByteRange[] | null): Promise<void> {
    this.meta.smartRanges = ranges;
    return this.saveMeta();
  }

  /** Records what the smart probe observed, so that this version of the file is probed only once. */
  setProbeRanges(ranges: ByteRange[]): Promise<void> {
    this.meta.probeRanges = ranges;
    return this.saveMeta();
  }

  /** Persists the last access time (the store calls it when the last reader leaves). */
  saveMeta(): Promise<void> {
    return this.serial(async () => {
      if (!this.closed)
        await writeMetaFile(path.join(this.folder, 'meta.json'), this.meta).catch(() => undefined);
    });
  }

  /** Flushes what is pending, saves the last access and closes the files. */
  close(): Promise<void> {
    return this.serial(async () => {
      if (this.closed) return;
      await this.flushNow();
      this.closed = true;
      await writeMetaFile(path.join(this.folder, 'meta.json'), this.meta).catch(() => undefined);
      await this.data.close().catch(() => undefined);
      await this.journal.close();
    });
  }

  /** Ranges recorded, for the tests and the entry list. */
  snapshot(): { recorded: ByteRange[]; pending: ByteRange[] } {
    return { recorded: normalize(this.ranges), pending: normalize(this.pending) };
  }
}

async function writeMetaFile(file: string, meta: EntryMeta): Promise<void> {
  const temporary = `${file}.tmp`;
  await writeFile(temporary, JSON.stringify(meta));
  await rename(temporary, file);
}
