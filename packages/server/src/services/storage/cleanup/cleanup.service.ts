import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { MountsService } from '../mounts.service.js';
import { isTempName, joinPath, type MountPath } from '../path-safety.js';
import type { TransfersRepository } from '../transfers/transfers.repository.js';
import type { UploadsRepository } from '../uploads/uploads.repository.js';
import { localStagingFile, type UploadsService } from '../uploads/uploads.service.js';

/** Temp files older than this are leftovers of interrupted writes. */
export const TEMP_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Finished transfers and uploads are kept this long for the console's history. */
export const HISTORY_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The storage.temp-cleanup task: expires idle uploads, then deletes temp files older than a day on
 * every mount and in the staging folder (temp files of uploads still in progress are kept), and prunes
 * old history.
 */
export class TempCleanup {
  constructor(
    private readonly mounts: MountsService,
    private readonly uploads: UploadsService,
    private readonly uploadsRepository: UploadsRepository,
    private readonly transfersRepository: TransfersRepository,
    private readonly stagingDir: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly maxAgeMs = TEMP_MAX_AGE_MS,
  ) {}

  async run(signal?: AbortSignal): Promise<{ removed: number; expiredUploads: number }> {
    const expiredUploads = await this.uploads.expire();
    const live = await this.uploadsRepository.liveStagings();
    const cutoff = this.clock.now() - this.maxAgeMs;
    let removed = 0;
    for (const { id } of await this.mounts.internalList()) {
      signal?.throwIfAborted();
      try {
        removed += await this.sweepMount(id, cutoff, live, signal);
      } catch (error) {
        this.logger.warn({ mountId: id, err: error }, 'temp cleanup skipped a mount');
      }
    }
    removed += await this.sweepStaging(cutoff, live);
    const before = new Date(this.clock.now() - HISTORY_MS);
    await this.transfersRepository.pruneFinishedBefore(before);
    await this.uploadsRepository.pruneFinishedBefore(before);
    if (removed > 0 || expiredUploads > 0) {
      this.logger.info({ removed, expiredUploads }, 'stale temp files removed');
    }
    return { removed, expiredUploads };
  }

  private async sweepMount(mountId: string, cutoff: number, live: Set<string>, signal?: AbortSignal) {
    const mount = await this.mounts.get(mountId);
    let removed = 0;
    const pending: MountPath[] = ['' as MountPath];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      for await (const entry of mount.provider.list(dir, signal)) {
        const child = joinPath(dir, entry.name);
        if (isTempName(entry.name)) {
          if (entry.mtime.getTime() < cutoff && !live.has(`mount:${child}`)) {
            await mount.provider.delete(child, { recursive: true }).catch(() => undefined);
            removed += 1;
          }
        } else if (entry.type === 'dir' && !entry.link) {
          pending.push(child);
        }
      }
    }
    return removed;
  }

  private async sweepStaging(cutoff: number, live: Set<string>): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.stagingDir);
    } catch {
      return 0;
    }
    // Matched by file name: a live upload's row may name the folder it was created in before the data moved.
    const liveFiles = new Set(
      [...live]
        .filter((staging) => staging.startsWith('local:'))
        .map((staging) => localStagingFile(this.stagingDir, staging)),
    );
    let removed = 0;
    for (const name of names) {
      if (!isTempName(name)) continue;
      const file = path.join(this.stagingDir, name);
      const info = await stat(file).catch(() => null);
      if (info && info.mtimeMs < cutoff && !liveFiles.has(file)) {
        await unlink(file).catch(() => undefined);
        removed += 1;
      }
    }
    return removed;
  }
}
