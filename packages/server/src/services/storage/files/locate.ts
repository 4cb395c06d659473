import { realpath } from 'node:fs/promises';
import type { LocateResponse } from '@svc/contracts';
import type { OpenMount } from '../mounts.service.js';
import type { MountPath } from '../path-safety.js';
import { fromFsError, storageErrors } from '../storage-errors.js';

/**
 * Where a file of a mount lies on this machine, for a play-agent running here (docs/streaming.md). The
 * provider's own resolution checks the path (every symbolic link must stay inside the mount root, else
 * 403 PATH_ESCAPES_MOUNT); the answer is the real path of the file, so the play-agent opens exactly what
 * was checked. Mounts whose files are not local (WebDAV) answer `localPath: null`: the play-agent then
 * reads through the file route. A missing file is 404, a folder 409 IS_A_DIRECTORY.
 */
export async function locateFile(mount: OpenMount, path: MountPath): Promise<LocateResponse> {
  const entry = await mount.provider.stat(path);
  if (!entry) throw storageErrors.pathNotFound();
  if (entry.type === 'dir') throw storageErrors.isADirectory();
  let localPath: string | null = null;
  if (mount.provider.capabilities.localFiles) {
    const resolved = await mount.provider.localPath(path);
    if (resolved !== null) {
      localPath = await realpath(resolved).catch((error: unknown) => {
        throw fromFsError(error);
      });
    }
  }
  return { localPath, size: entry.size, mtime: entry.mtime.toISOString() };
}
