import type { Readable } from 'node:stream';
import type { EntryType, ProviderCapabilities } from '@svc/contracts';
import type { z } from 'zod';
import { badRequest } from '../../../platform/http/errors.js';
import type { MountPath } from '../path-safety.js';

export type { ProviderCapabilities };

/** One file or folder as a provider reports it. */
export interface ProviderEntry {
  name: string;
  type: EntryType;
  /** Bytes; 0 for folders. */
  size: number;
  mtime: Date;
  /** A symbolic link (listed as what it points to); walks do not descend into linked folders. */
  link?: boolean;
}

/** Space of the storage a mount lives on, in bytes; each null when the backend does not say. */
export interface ProviderUsage {
  totalBytes: number | null;
  usedBytes: number | null;
  /** Free to the node (local: excluding blocks reserved for the superuser). */
  freeBytes: number | null;
}

/** Inclusive byte range, as in HTTP. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A time-limited link a client may fetch directly (cloud drives); headers must be sent with it. */
export interface DirectLink {
  url: string;
  expiresAt: Date;
  headers: Record<string, string>;
}

export interface WriteOptions {
  /** Replace an existing file; without it an existing target is 409 ALREADY_EXISTS. */
  overwrite: boolean;
  /** Name (isTempName) of the temp file to write next to the target; chosen by the caller so it can record it. */
  tempName: string;
  /** Bytes the source will deliver, when known (lets HTTP providers send Content-Length). */
  size?: number;
  signal?: AbortSignal;
}

/**
 * The contract every storage backend fulfils. Paths are MountPaths (already validated, relative to the
 * mount root); a provider maps them onto its own namespace and must not let them leave it.
 *
 * Errors are AppErrors with the storage codes (storage-errors.ts): NOT_FOUND, ALREADY_EXISTS,
 * NOT_A_DIRECTORY, IS_A_DIRECTORY, DIRECTORY_NOT_EMPTY, PATH_ESCAPES_MOUNT, STORAGE_UNAVAILABLE.
 */
export interface StorageProvider {
  readonly kind: string;
  readonly capabilities: ProviderCapabilities;

  /** Checks that the backend answers (mount creation and the check route). */
  check(signal?: AbortSignal): Promise<void>;
  /**
   * The space of the storage holding the mount root (the console dashboard): local file systems from
   * statfs, remote backends what their protocol reports (nulls when nothing). Throws like check() when
   * the backend does not answer.
   */
  usage(signal?: AbortSignal): Promise<ProviderUsage>;
  /** The entry at path, or null when nothing is there. */
  stat(path: MountPath, signal?: AbortSignal): Promise<ProviderEntry | null>;
  /**
   * Every entry of a folder, in any order, temp files included (callers filter with isTempName and
   * page). Cloud drives that page their listings yield page after page. NOT_FOUND / NOT_A_DIRECTORY.
   */
  list(dir: MountPath, signal?: AbortSignal): AsyncIterable<ProviderEntry>;
  /** The bytes of a file, or of one inclusive range of it. The stream delivers exactly those bytes. */
  read(path: MountPath, options?: { range?: ByteRange; signal?: AbortSignal }): Promise<Readable>;
  /**
   * One range of a file whose size the caller already knows, in one request to the backend (no stat
   * first): the answer's total size is checked against `size` (412 FILE_CHANGED when it differs).
   * `mtime` is the backend's modification time from that answer, null when it gave none. Backends whose
   * stat costs a round trip of its own implement it; the internal file route stats and reads otherwise.
   */
  readKnownSize?(
    path: MountPath,
    options: { range: ByteRange; size: number; signal?: AbortSignal },
  ): Promise<{ body: Readable; mtime: Date | null }>;
  /**
   * Atomic write: the bytes go to `tempName` next to the target, are made durable and only then take the
   * target's name. A failure or crash never leaves a partial file under the target's name and never
   * damages an existing one. The parent folder must exist.
   */
  write(path: MountPath, source: Readable, options: WriteOptions): Promise<void>;
  /** Creates a folder (and missing parents with `parents`, where an existing folder is no error). */
  mkdir(path: MountPath, options: { parents: boolean }): Promise<void>;
  /**
   * Renames or moves within the mount in one step. Throws NativeUnsupported when the backend cannot do it
   * in one step (e.g. across file systems); the caller then copies and deletes.
   */
  move(from: MountPath, to: MountPath, options: { overwrite: boolean }): Promise<void>;
  /**
   * Server-side copy within the mount (only when capabilities.serverSideCopy), atomic for the target:
   * copies to `tempName` next to it, then moves into place.
   */
  copy(from: MountPath, to: MountPath, options: { overwrite: boolean; tempName: string }): Promise<void>;
  /** Deletes a file, or a folder (non-empty only with `recursive`). */
  delete(path: MountPath, options: { recursive: boolean }): Promise<void>;
  /** A direct link (capabilities.directLinks), or null when the provider has none for this file. */
  directLink(path: MountPath, options: { expiresInSeconds: number }): Promise<DirectLink | null>;
  /** The file's path on this machine (capabilities.localFiles), for tools such as ffprobe; null otherwise. */
  localPath(path: MountPath): Promise<string | null>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Everything a provider factory receives. */
export interface ProviderContext {
  /** The node's data folder (local mount roots may not overlap it). */
  dataDir: string;
}

/** A kind of provider: validates and masks its config and builds instances. */
export interface ProviderDefinition<Config = unknown> {
  kind: string;
  /** Keys of the config that are secrets: masked in answers, kept when sent back masked. */
  secrets: readonly string[];
  /** Creating or changing mounts of this kind needs the administrator role (not just `storage`). */
  adminOnly: boolean | ((config: Config) => boolean);
  /** Parses a config from a request or the database; throws VALIDATION_FAILED. */
  parse(config: unknown): Config;
  /** Extra checks at creation or update (e.g. the root exists); throws AppErrors. */
  validate(config: Config, context: ProviderContext): Promise<void>;
  create(config: Config, context: ProviderContext): StorageProvider;
}

/** A provider config checked against its schema; a refusal is 400 naming each field (`ProviderDefinition.parse`). */
export function parseProviderConfig<Schema extends z.ZodType>(
  schema: Schema,
  config: unknown,
): z.infer<Schema> {
  const parsed = schema.safeParse(config);
  if (!parsed.success) {
    throw badRequest(
      'provider config is not valid',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  return parsed.data;
}
