import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { EntryType } from '@svc/contracts';
import type { ByteRange } from '../providers/provider.js';

/** One file or folder of a drive. Paths are drive paths relative to the mount root ('' = the root). */
export interface DriveEntry {
  name: string;
  type: EntryType;
  size: number;
  mtime: Date;
}

/** A link the drive serves a file's bytes at; `expiresAt` null = no expiry (locally assembled links). */
export interface DriveLink {
  url: string;
  expiresAt: Date | null;
  /** Headers to send with the link (the User-Agent it was issued for). */
  headers: Record<string, string>;
  /** Size and mtime of the file, from the same lookup that gave the link (a read needs no stat first). */
  file?: { size: number; mtime: Date };
}

/**
 * What a cloud drive offers the storage node (docs/drives.md): listing, stat, direct links with their
 * expiry, and ranged reads of a link. The storage adapter (drive-storage.ts) turns it into a read-only
 * StorageProvider. Errors are AppErrors: NOT_FOUND, NOT_A_DIRECTORY, STORAGE_UNAVAILABLE, and
 * DRIVE_TOKEN_INVALID when the drive refuses the account's token.
 */
export interface DriveProvider {
  readonly kind: 'drive_a' | 'drive_b';
  /** Host names the bytes are served from (capabilities.cdnHosts). */
  readonly cdnHosts: string[];
  check(signal?: AbortSignal): Promise<void>;
  stat(path: string, signal?: AbortSignal): Promise<DriveEntry | null>;
  /** A folder's entries, page after page. */
  list(path: string, signal?: AbortSignal): AsyncIterable<DriveEntry>;
  /** A link to a file's bytes; `userAgent` overrides the account's (the play-agent's fixed value). */
  directLink(path: string, options: { userAgent?: string; signal?: AbortSignal }): Promise<DriveLink>;
  /** Dispatcher of byte reads from links: injectable, so a CDN address preference can replace it. */
  readonly downloads: Dispatcher;
  close(): Promise<void>;
}

export type DriveReadOptions = { range?: ByteRange; signal?: AbortSignal };
export type DriveRead = (path: string, options: DriveReadOptions) => Promise<Readable>;
