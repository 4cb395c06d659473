import { constants } from 'node:fs';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fromFsError, storageErrors } from '../storage-errors.js';

/** Makes a rename or a new entry in `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems (e.g. certain FUSE mounts) refuse fsync on folders; the rename itself stands.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
  } finally {
    await handle.close();
  }
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Gives a finished, fsynced temp file its final name in one step: rename (replacing a file) or, without
 * overwrite, a hard link that fails when the name exists (no window in which another file is clobbered).
 * Then the folder is fsynced. The temp file is gone afterwards unless an error is thrown.
 */
export async function commitTempFile(temp: string, final: string, overwrite: boolean): Promise<void> {
  try {
    const existing = await lstat(final).catch(() => null);
    if (existing?.isDirectory()) throw storageErrors.isADirectory();
    if (overwrite) {
      await rename(temp, final);
    } else {
      try {
        await link(temp, final);
        await unlink(temp);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // File systems without hard links: check, then rename (a narrow race is accepted there).
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
        if (await exists(final)) throw storageErrors.alreadyExists();
        await rename(temp, final);
      }
    }
    await fsyncDir(path.dirname(final));
  } catch (error) {
    throw fromFsError(error);
  }
}

/** True when both paths name the same inode (a commit that linked but did not yet unlink the temp). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([lstat(a).catch(() => null), lstat(b).catch(() => null)]);
  return x !== null && y !== null && x.ino === y.ino && x.dev === y.dev;
}
