import { pipeline } from 'node:stream';
import type { ErrorCode } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { FilesService } from '../files/files.service.js';
import type { MountsService, OpenMount } from '../mounts.service.js';
import {
  isTempName,
  isUsableName,
  joinPath,
  nameOf,
  newTempName,
  parentOf,
  type MountPath,
} from '../path-safety.js';
import { NativeUnsupported, storageErrors } from '../storage-errors.js';
import { ByteMeter } from './byte-meter.js';
import { transferView, type LiveTransfer } from './live-transfer.js';
import type { TransferEvents } from './transfer-events.js';
import type { TransferRow, TransfersRepository } from './transfers.repository.js';

/** Progress reaches the database at most this often (the event stream gets it up to 4 times a second). */
const PERSIST_INTERVAL_MS = 1_000;
/** Temp files of copies at least this large are recorded in the transfer row for the restart cleanup. */
const RECORD_TEMP_MIN_BYTES = 1024 * 1024;

interface PlannedFile {
  rel: MountPath;
  size: number;
}

interface Plan {
  dirs: MountPath[];
  files: PlannedFile[];
}

function errorOf(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: 'TRANSFER_FAILED', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Runs one transfer to its end: plans the files, uses the provider's native copy or move when it has one,
 * else streams every file through the target's atomic write, and keeps the row and the event stream up to
 * date. A move deletes its source only after everything is in place.
 */
export class TransferRunner {
  constructor(
    private readonly repository: TransfersRepository,
    private readonly mounts: MountsService,
    private readonly files: FilesService,
    private readonly events: TransferEvents,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  /** Deletes the temp file a transfer recorded (after a crash or a failure). */
  async removeRecordedTemp(row: TransferRow): Promise<void> {
    if (!row.temp_mount_id || !row.temp_path || !isTempName(nameOf(row.temp_path as MountPath))) return;
    try {
      const mount = await this.mounts.get(row.temp_mount_id);
      await mount.provider.delete(row.temp_path as MountPath, { recursive: true });
      this.logger.info(
        { transferId: row.id, temp: row.temp_path },
        'removed the temp file of an interrupted transfer',
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return;
      this.logger.warn(
        { transferId: row.id, err: error },
        'could not remove the temp file of an interrupted transfer',
      );
    }
  }

  private async setState(live: LiveTransfer, changes: Partial<TransferRow>): Promise<void> {
    Object.assign(live.row, changes, { updated_at: this.now() });
    const { row } = live;
    await this.repository.update(row.id, {
      state: row.state,
      bytes_done: row.bytes_done,
      bytes_total: row.bytes_total,
      files_done: row.files_done,
      files_total: row.files_total,
      error_code: row.error_code,
      error_message: row.error_message,
      started_at: row.started_at,
      finished_at: row.finished_at,
      temp_mount_id: row.temp_mount_id,
      temp_path: row.temp_path,
      updated_at: row.updated_at,
    });
    live.lastPersistAt = Date.now();
    this.events.state(transferView(row, live));
  }

  private progressed(live: LiveTransfer): void {
    const now = Date.now();
    live.rate.add(now, live.row.bytes_done);
    live.row.updated_at = this.now();
    this.events.progress(transferView(live.row, live));
    if (now - live.lastPersistAt >= PERSIST_INTERVAL_MS) {
      live.lastPersistAt = now;
      const { row } = live;
      void this.repository
        .update(row.id, {
          bytes_done: row.bytes_done,
          bytes_total: row.bytes_total,
          files_done: row.files_done,
          files_total: row.files_total,
          updated_at: row.updated_at,
        })
        .catch((error: unknown) =>
          this.logger.warn({ transferId: row.id, err: error }, 'progress not saved'),
        );
    }
  }

  private async recordTemp(
    live: LiveTransfer,
    mountId: string | null,
    path: MountPath | null,
  ): Promise<void> {
    live.row.temp_mount_id = mountId;
    live.row.temp_path = path;
    await this.repository.update(live.row.id, { temp_mount_id: mountId, temp_path: path });
  }

  async run(live: LiveTransfer): Promise<void> {
    const signal = live.controller.signal;
    await this.setState(live, {
      state: 'running',
      started_at: this.now(),
      bytes_done: 0,
      files_done: 0,
      error_code: null,
      error_message: null,
    });
    const { row } = live;
    const from = row.source_path as MountPath;
    const to = row.target_path as MountPath;
    try {
      const source = await this.mounts.get(row.source_mount_id);
      const target = await this.mounts.get(row.target_mount_id);
      const entry = await source.provider.stat(from, signal);
      if (!entry) throw storageErrors.pathNotFound();
      const plan: Plan =
        entry.type === 'file'
          ? { dirs: [], files: [{ rel: '' as MountPath, size: entry.size }] }
          : await this.plan(source, from, signal);
      row.bytes_total = plan.files.reduce((sum, file) => sum + file.size, 0);
      row.files_total = plan.files.length;
      this.progressed(live);

      let done = false;
      const sameMount = source.id === target.id;
      if (sameMount && row.kind === 'move' && source.provider.capabilities.serverSideMove) {
        done = await this.native(() => source.provider.move(from, to, { overwrite: row.overwrite }));
      }
      if (!done && sameMount && source.provider.capabilities.serverSideCopy) {
        const tempName = newTempName();
        await this.recordTemp(live, target.id, joinPath(parentOf(to), tempName));
        done = await this.native(() =>
          source.provider.copy(from, to, { overwrite: row.overwrite, tempName }),
        );
        await this.recordTemp(live, null, null);
        if (done && row.kind === 'move') await source.provider.delete(from, { recursive: true });
      }
      if (done) {
        row.bytes_done = row.bytes_total;
        row.files_done = row.files_total;
      } else {
        await this.streamCopy(live, source, target, entry.type, plan, signal);
        signal.throwIfAborted();
        // A move lets go of the source only now that every file is in place at the target.
        if (row.kind === 'move') await source.provider.delete(from, { recursive: true });
      }
      this.files.invalidate(source.id);
      this.files.invalidate(target.id);
      await this.setState(live, { state: 'succeeded', finished_at: this.now() });
      this.logger.info(
        { transferId: row.id, bytes: row.bytes_done, files: row.files_done },
        'transfer succeeded',
      );
    } catch (error) {
      if (row.temp_path) await this.removeRecordedTemp(row);
      row.temp_mount_id = null;
      row.temp_path = null;
      if (signal.aborted && live.stopReason === 'cancel') {
        await this.setState(live, { state: 'cancelled', finished_at: this.now() });
        this.logger.info({ transferId: row.id }, 'transfer cancelled');
      } else if (signal.aborted) {
        await this.setState(live, {
          state: 'failed',
          error_code: 'INTERRUPTED',
          error_message: 'the storage node stopped while the transfer was running; retry it',
          finished_at: this.now(),
        });
      } else {
        const { code, message } = errorOf(error);
        await this.setState(live, {
          state: 'failed',
          error_code: code,
          error_message: message,
          finished_at: this.now(),
        });
        this.logger.warn({ transferId: row.id, code, err: message }, 'transfer failed');
      }
      this.files.invalidate(row.target_mount_id);
    }
  }

  /** Runs a one-step provider operation; false when the provider cannot do it natively. */
  private async native(operation: () => Promise<void>): Promise<boolean> {
    try {
      await operation();
      return true;
    } catch (error) {
      if (error instanceof NativeUnsupported) return false;
      throw error;
    }
  }

  /** Every folder and file below a folder (temp files skipped, linked folders not followed). */
  private async plan(mount: OpenMount, root: MountPath, signal: AbortSignal): Promise<Plan> {
    const plan: Plan = { dirs: [], files: [] };
    const pending: MountPath[] = ['' as MountPath];
    while (pending.length > 0) {
      const rel = pending.shift()!;
      for await (const entry of mount.provider.list(rel === '' ? root : joinPath(root, rel), signal)) {
        if (isTempName(entry.name)) continue;
        if (!isUsableName(entry.name)) {
          this.logger.warn({ name: entry.name }, 'transfer skips an entry whose name cannot be used safely');
          continue;
        }
        const child = joinPath(rel, entry.name);
        if (entry.type === 'dir') {
          if (entry.link) continue;
          plan.dirs.push(child);
          pending.push(child);
        } else {
          plan.files.push({ rel: child, size: entry.size });
        }
      }
    }
    return plan;
  }

  private async ensureDir(target: OpenMount, path: MountPath, mayExist: boolean): Promise<void> {
    const existing = await target.provider.stat(path);
    if (existing) {
      if (existing.type !== 'dir') throw storageErrors.notADirectory();
      if (!mayExist) throw storageErrors.alreadyExists();
      return;
    }
    await target.provider.mkdir(path, { parents: false });
  }

  private async streamCopy(
    live: LiveTransfer,
    source: OpenMount,
    target: OpenMount,
    type: 'file' | 'dir',
    plan: Plan,
    signal: AbortSignal,
  ): Promise<void> {
    const { row } = live;
    const from = row.source_path as MountPath;
    const to = row.target_path as MountPath;
    const at = (base: MountPath, rel: MountPath) => (rel === '' ? base : joinPath(base, rel));
    if (type === 'dir') {
      await this.ensureDir(target, to, row.overwrite || row.attempt > 1);
      for (const dir of plan.dirs) await this.ensureDir(target, at(to, dir), true);
    }
    for (const file of plan.files) {
      signal.throwIfAborted();
      const destination = at(to, file.rel);
      const existing = await target.provider.stat(destination, signal);
      if (existing) {
        if (existing.type === 'dir') throw storageErrors.isADirectory();
        // A retry keeps what an earlier attempt already put in place (files land atomically).
        const fromEarlierAttempt =
          row.attempt > 1 &&
          existing.size === file.size &&
          (!row.overwrite || existing.mtime >= row.created_at);
        if (fromEarlierAttempt) {
          row.bytes_done += file.size;
          row.files_done += 1;
          this.progressed(live);
          continue;
        }
        if (!row.overwrite) throw storageErrors.alreadyExists();
      }
      const tempName = newTempName();
      const record = file.size >= RECORD_TEMP_MIN_BYTES;
      if (record) await this.recordTemp(live, target.id, joinPath(parentOf(destination), tempName));
      const input = await source.provider.read(at(from, file.rel), { signal });
      const meter = new ByteMeter(
        live.budget,
        (count) => {
          row.bytes_done += count;
          this.progressed(live);
        },
        signal,
      );
      const body = pipeline(input, meter, () => undefined);
      await target.provider.write(destination, body, {
        overwrite: row.overwrite,
        tempName,
        size: file.size,
        signal,
      });
      if (record) await this.recordTemp(live, null, null);
      row.files_done += 1;
      this.progressed(live);
    }
  }
}
