import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { CreateUploadRequest, Identity, StorageEntry, Upload } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { FilesService } from '../files/files.service.js';
import type { MountsService, OpenMount } from '../mounts.service.js';
import {
  TEMP_PREFIX,
  joinPath,
  newTempName,
  parentOf,
  parseMountPath,
  type MountPath,
} from '../path-safety.js';
import { commitTempFile, sameFile } from '../providers/atomic-fs.js';
import { fromFsError, storageErrors } from '../storage-errors.js';
import type { UploadRow, UploadsRepository } from './uploads.repository.js';

/** An upload nobody touched for this long expires (its bytes are deleted by the cleanup task). */
export const UPLOAD_IDLE_MS = 24 * 60 * 60 * 1000;

const uploadNotFound = () => new AppError(404, 'NOT_FOUND', 'upload not found');
const invalidChunk = (message: string) => new AppError(400, 'INVALID_CHUNK', message);

/** Where an upload's bytes collect until completion. */
type Staging = { kind: 'mount'; path: MountPath } | { kind: 'local'; file: string };

function stagingOf(row: UploadRow): Staging {
  if (row.staging.startsWith('mount:')) return { kind: 'mount', path: row.staging.slice(6) as MountPath };
  return { kind: 'local', file: row.staging.slice(6) };
}

/**
 * The file of a `local:` staging in this node's staging folder. The row keeps the absolute path it was created
 * with, but the data folder may have moved since (a legacy storage node promoted into a standalone, a built-in
 * node installed on a worker machine, a restore elsewhere): only the file name, always `<TEMP_PREFIX><id>`, is
 * taken from it.
 */
export function localStagingFile(stagingDir: string, staging: string): string {
  return path.join(stagingDir, path.basename(staging.slice('local:'.length)));
}

/**
 * Chunked, resumable uploads. The file's bytes collect in a sparse staging file: on mounts of this
 * machine a temp file next to the target (so completion is a rename), elsewhere a file in the node's
 * data folder that completion streams through the provider's atomic write. Chunks may arrive in any
 * order; each is written at its offset, fsynced, and only then recorded.
 */
export class UploadsService {
  /** Uploads whose completion runs in this process right now. */
  private readonly completing = new Set<string>();

  constructor(
    private readonly repository: UploadsRepository,
    private readonly mounts: MountsService,
    private readonly files: FilesService,
    private readonly stagingDir: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  private async view(row: UploadRow, received?: number[]): Promise<Upload> {
    return {
      id: row.id,
      mountId: row.mount_id,
      path: row.path,
      size: row.size,
      sha256: row.sha256,
      overwrite: row.overwrite,
      chunkSize: row.chunk_size,
      chunkCount: row.chunk_count,
      received: received ?? (await this.repository.receivedChunks(row.id)),
      state: row.state,
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
    };
  }

  private async load(mountId: string, id: string): Promise<UploadRow> {
    const row = await this.repository.get(id);
    if (!row || row.mount_id !== mountId) throw uploadNotFound();
    return row;
  }

  /** The absolute staging file (re-checked against the mount root for staging inside a mount). */
  private async stagingFile(mount: OpenMount, row: UploadRow): Promise<string> {
    const staging = stagingOf(row);
    if (staging.kind === 'local') return localStagingFile(this.stagingDir, row.staging);
    const file = await mount.provider.localPath(staging.path);
    if (!file) throw storageErrors.unavailable('the mount no longer maps to local files');
    return file;
  }

  async create(identity: Identity, mountId: string, request: CreateUploadRequest): Promise<Upload> {
    const target = parseMountPath(request.path);
    if (target === '') throw storageErrors.invalidTarget('an upload must name a file');
    const mount = await this.mounts.get(mountId);
    const parent = await mount.provider.stat(parentOf(target));
    if (!parent) throw new AppError(404, 'NOT_FOUND', 'the target folder does not exist');
    if (parent.type !== 'dir') throw storageErrors.notADirectory();
    const existing = await mount.provider.stat(target);
    if (existing?.type === 'dir') throw storageErrors.isADirectory();
    if (existing && !request.overwrite) throw storageErrors.alreadyExists();

    const id = randomUUID();
    let staging: string;
    let file: string;
    if (mount.provider.capabilities.localFiles) {
      const tempPath = joinPath(parentOf(target), `${TEMP_PREFIX}${id}`);
      const local = await mount.provider.localPath(tempPath);
      if (!local) throw storageErrors.unavailable('the mount no longer maps to local files');
      staging = `mount:${tempPath}`;
      file = local;
    } else {
      await mkdir(this.stagingDir, { recursive: true });
      file = path.join(this.stagingDir, `${TEMP_PREFIX}${id}`);
      staging = `local:${file}`;
    }
    try {
      const handle = await open(file, 'wx', 0o644);
      try {
        await handle.truncate(request.size);
      } finally {
        await handle.close();
      }
    } catch (error) {
      await unlink(file).catch(() => undefined);
      throw fromFsError(error);
    }
    const now = this.now();
    const row: UploadRow = {
      id,
      mount_id: mount.id,
      path: target,
      size: request.size,
      sha256: request.sha256 ?? null,
      overwrite: request.overwrite,
      chunk_size: request.chunkSize,
      chunk_count: Math.ceil(request.size / request.chunkSize),
      staging,
      state: 'open',
      created_by: identity.username,
      created_at: now,
      updated_at: now,
      expires_at: new Date(now.getTime() + UPLOAD_IDLE_MS),
    };
    try {
      await this.repository.insert(row);
    } catch (error) {
      await unlink(file).catch(() => undefined);
      throw error;
    }
    this.logger.info({ uploadId: id, mountId, path: target, size: request.size }, 'upload started');
    return this.view(row, []);
  }

  async get(mountId: string, id: string): Promise<Upload> {
    return this.view(await this.load(mountId, id));
  }

  /** Stores chunk `index` (exactly its length) at its offset; a repeated chunk simply overwrites itself. */
  async putChunk(
    mountId: string,
    id: string,
    index: number,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<{ index: number; received: number }> {
    const row = await this.load(mountId, id);
    if (row.state !== 'open') throw new AppError(409, 'UPLOAD_CLOSED', `the upload is ${row.state}`);
    if (index >= row.chunk_count) {
      throw invalidChunk(`chunk ${index} is beyond the end (the upload has ${row.chunk_count} chunks)`);
    }
    const offset = index * row.chunk_size;
    const expected = Math.min(row.chunk_size, row.size - offset);
    if (declaredLength !== undefined && declaredLength !== expected) {
      throw invalidChunk(`chunk ${index} must be ${expected} bytes, not ${declaredLength}`);
    }
    const mount = await this.mounts.get(mountId);
    const file = await this.stagingFile(mount, row);
    let handle;
    try {
      handle = await open(file, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new AppError(409, 'UPLOAD_CLOSED', 'the bytes of this upload are gone (expired)');
      }
      throw fromFsError(error);
    }
    let written = 0;
    try {
      for await (const chunk of body) {
        const buffer = chunk as Buffer;
        if (written + buffer.length > expected) {
          throw invalidChunk(`chunk ${index} is longer than ${expected} bytes`);
        }
        await handle.write(buffer, 0, buffer.length, offset + written);
        written += buffer.length;
      }
      if (written !== expected)
        throw invalidChunk(`chunk ${index} must be ${expected} bytes, got ${written}`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    const now = this.now();
    await this.repository.markChunk(id, index, now, new Date(now.getTime() + UPLOAD_IDLE_MS));
    return { index, received: await this.repository.countChunks(id) };
  }

  private async sha256Of(file: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }))
      hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  /**
   * Checks that every chunk arrived (and the SHA-256 when one was given), then lets the file appear
   * under its name in one step. Calling it again after an interruption finishes the job.
   */
  async complete(mountId: string, id: string): Promise<{ upload: Upload; entry: StorageEntry }> {
    if (this.completing.has(id)) throw new AppError(409, 'UPLOAD_BUSY', 'the upload is being completed');
    this.completing.add(id);
    try {
      return await this.completeOnce(mountId, id);
    } finally {
      this.completing.delete(id);
    }
  }

  private async completeOnce(mountId: string, id: string): Promise<{ upload: Upload; entry: StorageEntry }> {
    const row = await this.load(mountId, id);
    const mount = await this.mounts.get(mountId);
    const target = row.path as MountPath;
    if (row.state === 'completed')
      return { upload: await this.view(row), entry: await this.files.stat(mountId, target) };
    if (row.state === 'aborted') throw new AppError(409, 'UPLOAD_CLOSED', 'the upload was aborted');
    const received = await this.repository.receivedChunks(id);
    if (received.length !== row.chunk_count) {
      const have = new Set(received);
      const missing: number[] = [];
      for (let index = 0; index < row.chunk_count && missing.length < 100; index++) {
        if (!have.has(index)) missing.push(index);
      }
      throw new AppError(
        409,
        'UPLOAD_INCOMPLETE',
        `${row.chunk_count - received.length} chunks are missing`,
        {
          missing,
        },
      );
    }
    const now = this.now();
    if (!(await this.repository.transition(id, ['open', 'completing'], 'completing', now))) {
      throw new AppError(409, 'UPLOAD_CLOSED', 'the upload changed state meanwhile');
    }
    const file = await this.stagingFile(mount, row);
    try {
      const staged = await stat(file).catch(() => null);
      const staging = stagingOf(row);
      if (!staged) {
        // Only an interrupted completion leaves no staging file: the rename already happened.
        const entry = staging.kind === 'mount' ? await mount.provider.stat(target) : null;
        if (!entry || entry.size !== row.size) {
          throw new AppError(409, 'UPLOAD_CLOSED', 'the bytes of this upload are gone (expired)');
        }
      } else {
        if (staged.size !== row.size) {
          throw new AppError(422, 'SIZE_MISMATCH', `the upload holds ${staged.size} bytes, not ${row.size}`);
        }
        if (row.sha256 && (await this.sha256Of(file)) !== row.sha256) {
          throw new AppError(422, 'CHECKSUM_MISMATCH', 'the SHA-256 of the uploaded bytes does not match');
        }
        if (staging.kind === 'mount') {
          const final = await mount.provider.localPath(target);
          if (!final) throw storageErrors.unavailable('the mount no longer maps to local files');
          if (await sameFile(file, final)) {
            await unlink(file); // linked into place before an interruption
          } else {
            const handle = await open(file, 'r+');
            try {
              await handle.sync();
            } finally {
              await handle.close();
            }
            await commitTempFile(file, final, row.overwrite);
          }
        } else {
          await mount.provider.write(target, createReadStream(file, { highWaterMark: 1024 * 1024 }), {
            overwrite: row.overwrite,
            tempName: newTempName(),
            size: row.size,
          });
          await unlink(file).catch(() => undefined);
        }
      }
    } catch (error) {
      await this.repository.transition(id, ['completing'], 'open', this.now());
      throw error;
    }
    await this.repository.transition(id, ['completing'], 'completed', this.now());
    this.files.invalidate(mountId);
    this.logger.info({ uploadId: id, mountId, path: target, size: row.size }, 'upload completed');
    const done = await this.load(mountId, id);
    return { upload: await this.view(done, received), entry: await this.files.stat(mountId, target) };
  }

  async abort(mountId: string, id: string): Promise<void> {
    const row = await this.load(mountId, id);
    if (row.state === 'completed') throw new AppError(409, 'UPLOAD_CLOSED', 'the upload is completed');
    await this.repository.transition(id, ['open', 'completing', 'aborted'], 'aborted', this.now());
    await this.discardStaging(row);
  }

  private async discardStaging(row: UploadRow): Promise<void> {
    try {
      const mount = await this.mounts.get(row.mount_id);
      await unlink(await this.stagingFile(mount, row));
    } catch {
      // Gone already, or the mount is gone: nothing left to free here.
    }
  }

  /** Expires uploads idle for a day and frees their bytes (scheduled task). */
  async expire(): Promise<number> {
    const expired = await this.repository.expired(this.now());
    for (const row of expired) {
      await this.repository.transition(row.id, ['open', 'completing'], 'aborted', this.now());
      await this.discardStaging(row);
    }
    return expired.length;
  }

  async openForMount(mountId: string): Promise<boolean> {
    return this.repository.openForMount(mountId);
  }
}
