import { createReadStream, lstatSync, type Stats } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  statfs,
  unlink,
  link,
} from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { localProviderConfigSchema, type LocalProviderConfig } from '@svc/contracts';
import { AppError, badRequest } from '../../../platform/http/errors.js';
import { isTempName, pathEscapes, segmentsOf, type MountPath } from '../path-safety.js';
import { NativeUnsupported, fromFsError, storageErrors } from '../storage-errors.js';
import { commitTempFile, fsyncDir } from './atomic-fs.js';
import {
  type ByteRange,
  type ProviderCapabilities,
  type ProviderContext,
  type ProviderDefinition,
  type ProviderEntry,
  type ProviderUsage,
  type StorageProvider,
  type WriteOptions,
  parseProviderConfig,
} from './provider.js';

const READ_CHUNK = 1024 * 1024;

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : `${parent}${path.sep}`);
}

function entryOf(name: string, info: Stats): ProviderEntry {
  const dir = info.isDirectory();
  return { name, type: dir ? 'dir' : 'file', size: dir ? 0 : info.size, mtime: info.mtime };
}

/** A folder of the node's own machine. */
export class LocalProvider implements StorageProvider {
  readonly kind = 'local';
  readonly capabilities: ProviderCapabilities = {
    rangeReads: true,
    serverSideCopy: false,
    serverSideMove: true,
    directLinks: false,
    cdnHosts: [],
    downloadThreads: 1,
    chunkSizeBytes: READ_CHUNK,
    localFiles: true,
  };

  constructor(private readonly root: string) {}

  private async realRoot(): Promise<string> {
    try {
      return await realpath(this.root);
    } catch {
      throw storageErrors.unavailable(`the mount root ${this.root} is not available`);
    }
  }

  /**
   * The absolute path for a mount path. Every existing component is checked: a symbolic link must
   * resolve inside the mount root (a dangling link counts as outside), else 403 PATH_ESCAPES_MOUNT.
   * The returned path keeps the links (a rename or delete acts on the link, not its target).
   */
  async resolve(mountPath: MountPath): Promise<string> {
    const root = await this.realRoot();
    let current = root;
    let existing = true;
    for (const segment of segmentsOf(mountPath)) {
      current = path.join(current, segment);
      if (!existing) continue;
      let info: Stats;
      try {
        info = await lstat(current);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          existing = false;
          continue;
        }
        throw fromFsError(error);
      }
      if (info.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(current);
        } catch {
          throw pathEscapes();
        }
        if (!isInside(target, root)) throw pathEscapes();
      }
    }
    return current;
  }

  async check(): Promise<void> {
    const root = await this.realRoot();
    const info = await stat(root);
    if (!info.isDirectory()) throw storageErrors.unavailable(`the mount root ${this.root} is not a folder`);
  }

  /** The file system holding the root: size, blocks in use, and blocks free to unprivileged users. */
  async usage(): Promise<ProviderUsage> {
    await this.check();
    let info;
    try {
      info = await statfs(await this.realRoot(), { bigint: true });
    } catch (error) {
      throw fromFsError(error);
    }
    const bytes = (blocks: bigint) => Number(blocks * info.bsize);
    return {
      totalBytes: bytes(info.blocks),
      usedBytes: bytes(info.blocks - info.bfree),
      freeBytes: bytes(info.bavail),
    };
  }

  async stat(mountPath: MountPath): Promise<ProviderEntry | null> {
    const absolute = await this.resolve(mountPath);
    try {
      const info = await stat(absolute);
      return entryOf(path.basename(absolute), info);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw fromFsError(error);
    }
  }

  async *list(dir: MountPath): AsyncIterable<ProviderEntry> {
    const absolute = await this.resolve(dir);
    const root = await this.realRoot();
    let names: import('node:fs').Dirent[];
    try {
      names = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      throw fromFsError(error);
    }
    // lstat on the libuv pool costs several times more than in a tight loop for big folders, so the
    // folder is stat'ed synchronously in slices, yielding to the event loop between slices.
    const SLICE = 256;
    for (let offset = 0; offset < names.length; offset += SLICE) {
      const slice = names.slice(offset, offset + SLICE);
      const entries: ProviderEntry[] = [];
      for (const dirent of slice) {
        const full = path.join(absolute, dirent.name);
        const info = lstatSync(full, { throwIfNoEntry: false });
        if (!info) continue;
        if (info.isSymbolicLink()) {
          // Links are listed as what they point to, and only when that lies inside the mount.
          const target = await realpath(full).catch(() => null);
          if (target === null || !isInside(target, root)) continue;
          const resolved = await stat(full).catch(() => null);
          if (resolved) entries.push({ ...entryOf(dirent.name, resolved), link: true });
          continue;
        }
        if (!info.isFile() && !info.isDirectory()) continue;
        entries.push(entryOf(dirent.name, info));
      }
      yield* entries;
      if (offset + SLICE < names.length) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async read(
    mountPath: MountPath,
    options: { range?: ByteRange; signal?: AbortSignal } = {},
  ): Promise<Readable> {
    const absolute = await this.resolve(mountPath);
    const handle = await open(absolute, 'r').catch((error: unknown) => {
      throw fromFsError(error);
    });
    const info = await handle.stat();
    if (info.isDirectory()) {
      await handle.close();
      throw storageErrors.isADirectory();
    }
    return createReadStream('', {
      fd: handle,
      start: options.range?.start,
      end: options.range?.end,
      highWaterMark: READ_CHUNK,
      signal: options.signal,
    });
  }

  async write(mountPath: MountPath, source: Readable, options: WriteOptions): Promise<void> {
    if (!isTempName(options.tempName)) throw new Error('temp name without the temp prefix');
    let temp: string | undefined;
    try {
      const final = await this.resolve(mountPath);
      const existing = await lstat(final).catch(() => null);
      if (existing?.isDirectory()) throw storageErrors.isADirectory();
      if (existing && !options.overwrite) throw storageErrors.alreadyExists();
      const handle = await open(path.join(path.dirname(final), options.tempName), 'wx', 0o644);
      temp = path.join(path.dirname(final), options.tempName);
      try {
        for await (const chunk of source) {
          options.signal?.throwIfAborted();
          await handle.write(chunk as Buffer);
        }
        options.signal?.throwIfAborted();
        await handle.sync();
      } finally {
        await handle.close();
      }
      await commitTempFile(temp, final, options.overwrite);
    } catch (error) {
      source.destroy();
      if (temp) await unlink(temp).catch(() => undefined);
      throw fromFsError(error);
    }
  }

  async mkdir(mountPath: MountPath, options: { parents: boolean }): Promise<void> {
    const absolute = await this.resolve(mountPath);
    try {
      await mkdir(absolute, { recursive: options.parents });
      const info = await stat(absolute);
      if (!info.isDirectory()) throw storageErrors.alreadyExists();
      await fsyncDir(path.dirname(absolute));
    } catch (error) {
      throw fromFsError(error);
    }
  }

  async move(from: MountPath, to: MountPath, options: { overwrite: boolean }): Promise<void> {
    const source = await this.resolve(from);
    const target = await this.resolve(to);
    try {
      const info = await lstat(source);
      const existing = await lstat(target).catch(() => null);
      if (existing) {
        if (!options.overwrite) throw storageErrors.alreadyExists();
        // Merging folders or replacing one kind by the other is done entry by entry by the caller.
        if (existing.isDirectory() || info.isDirectory()) throw new NativeUnsupported('merge');
      }
      if (!info.isDirectory() && !options.overwrite) {
        // A hard link cannot replace an existing name: no window in which a file appearing meanwhile is lost.
        try {
          await link(source, target);
          await unlink(source);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EXDEV') throw new NativeUnsupported('different file systems');
          if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
          await rename(source, target);
        }
      } else {
        await rename(source, target);
      }
      await fsyncDir(path.dirname(target));
      if (path.dirname(target) !== path.dirname(source)) await fsyncDir(path.dirname(source));
    } catch (error) {
      if (error instanceof NativeUnsupported || error instanceof AppError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'EXDEV')
        throw new NativeUnsupported('different file systems');
      throw fromFsError(error);
    }
  }

  async copy(): Promise<void> {
    throw new NativeUnsupported('local copies are streamed');
  }

  async delete(mountPath: MountPath, options: { recursive: boolean }): Promise<void> {
    const absolute = await this.resolve(mountPath);
    try {
      const info = await lstat(absolute);
      if (info.isDirectory()) {
        if (options.recursive) await rm(absolute, { recursive: true });
        else await rmdir(absolute);
      } else {
        await unlink(absolute);
      }
      await fsyncDir(path.dirname(absolute));
    } catch (error) {
      throw fromFsError(error);
    }
  }

  async directLink(): Promise<null> {
    return null;
  }

  async localPath(mountPath: MountPath): Promise<string> {
    return this.resolve(mountPath);
  }

  async close(): Promise<void> {}
}

/** Folders that must never become (or contain) a mount root: the node's own data folder. */
async function checkRoot(config: LocalProviderConfig, context: ProviderContext): Promise<void> {
  let root: string;
  try {
    root = await realpath(config.root);
  } catch {
    throw badRequest(`config.root ${config.root} does not exist on the storage node`);
  }
  if (!(await stat(root)).isDirectory()) throw badRequest(`config.root ${config.root} is not a folder`);
  const data = await realpath(context.dataDir).catch(() => path.resolve(context.dataDir));
  if (isInside(root, data) || isInside(data, root)) {
    throw storageErrors.mountRootForbidden('a mount root may not be, contain or lie inside the data folder');
  }
}

export const localProviderDefinition: ProviderDefinition<LocalProviderConfig> = {
  kind: 'local',
  secrets: [],
  // A local mount can expose any folder the node may read: only administrators create them.
  adminOnly: true,
  parse: (config) => {
    const parsed = parseProviderConfig(localProviderConfigSchema, config);
    if (!path.isAbsolute(parsed.root)) throw badRequest('config.root must be an absolute folder path');
    return { root: path.normalize(parsed.root) };
  },
  validate: checkRoot,
  create: (config) => new LocalProvider(config.root),
};
