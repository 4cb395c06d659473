import { randomUUID } from 'node:crypto';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import type { ErrorCode, Identity, Transfer, TransferRequest, TransferState } from '@svc/contracts';
import type { Clock } from '../../platform/cache/index.js';
import { AppError } from '../../platform/http/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { FilesService } from './files.service.js';
import type { MountsService, OpenMount } from './mounts.service.js';
import {
  isSameOrBelow,
  isTempName,
  isUsableName,
  joinPath,
  nameOf,
  newTempName,
  parentOf,
  parseMountPath,
  type MountPath,
} from './path-safety.js';
import { NativeUnsupported, storageErrors } from './storage-errors.js';
import type { TransferEvents } from './transfer-events.js';
import type { TransferRow, TransfersRepository } from './transfers.repository.js';

/** Progress reaches the database at most this often (the event stream gets it up to 4 times a second). */
const PERSIST_INTERVAL_MS = 1_000;
/** Temp files of copies at least this large are recorded in the transfer row for the restart cleanup. */
const RECORD_TEMP_MIN_BYTES = 1024 * 1024;
const RATE_WINDOW_MS = 3_000;
const STOP_WAIT_MS = 10_000;

const transferNotFound = () => new AppError(404, 'NOT_FOUND', 'transfer not found');

/** Bytes per second over the last few seconds. */
class RateMeter {
  private readonly samples: [number, number][] = [];

  add(at: number, total: number): void {
    this.samples.push([at, total]);
    while (this.samples.length > 2 && this.samples[0]![0] < at - RATE_WINDOW_MS) this.samples.shift();
  }

  rate(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last[0] <= first[0]) return 0;
    return Math.round(((last[1] - first[1]) * 1000) / (last[0] - first[0]));
  }
}

/** Shared by every file of one transfer, so a bandwidth limit spans the whole transfer. */
interface Budget {
  limit: number | null;
  startedAt: number;
  bytes: number;
}

/** Counts the bytes that pass and holds them back when the transfer's bandwidth limit is reached. */
class ByteMeter extends Transform {
  constructor(
    private readonly budget: Budget,
    private readonly onBytes: (count: number) => void,
    private readonly signal: AbortSignal,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.budget.bytes += chunk.length;
    this.onBytes(chunk.length);
    const { limit } = this.budget;
    const wait = limit ? this.budget.startedAt + (this.budget.bytes / limit) * 1000 - Date.now() : 0;
    if (wait <= 0) return callback(null, chunk);
    const onAbort = () => {
      clearTimeout(timer);
      callback(this.signal.reason as Error);
    };
    const timer = setTimeout(() => {
      this.signal.removeEventListener('abort', onAbort);
      callback(null, chunk);
    }, wait);
    this.signal.addEventListener('abort', onAbort, { once: true });
  }
}

interface PlannedFile {
  rel: MountPath;
  size: number;
}

interface Plan {
  dirs: MountPath[];
  files: PlannedFile[];
}

interface LiveTransfer {
  row: TransferRow;
  controller: AbortController;
  stopReason: 'cancel' | 'shutdown' | null;
  rate: RateMeter;
  lastPersistAt: number;
  budget: Budget;
}

function errorOf(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: 'TRANSFER_FAILED', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Copies and moves as background transfers: persisted in storage_transfers, run a few at a time, with
 * progress for the event stream. Every file lands through the target provider's atomic write; a move
 * deletes its source only after everything is in place.
 */
export class TransfersService {
  private readonly queue: TransferRow[] = [];
  private readonly running = new Map<string, LiveTransfer>();
  private readonly runs = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly repository: TransfersRepository,
    private readonly mounts: MountsService,
    private readonly files: FilesService,
    private readonly events: TransferEvents,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly concurrency = 2,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  view(row: TransferRow, live?: LiveTransfer): Transfer {
    return {
      id: row.id,
      kind: row.kind,
      state: row.state,
      source: { mountId: row.source_mount_id, path: row.source_path },
      target: { mountId: row.target_mount_id, path: row.target_path },
      overwrite: row.overwrite,
      bytes: { done: row.bytes_done, total: row.bytes_total },
      files: { done: row.files_done, total: row.files_total },
      rate: live && row.state === 'running' ? live.rate.rate() : 0,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      attempt: row.attempt,
      createdBy: row.created_by,
      createdAt: row.created_at.toISOString(),
      startedAt: row.started_at?.toISOString() ?? null,
      finishedAt: row.finished_at?.toISOString() ?? null,
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private current(row: TransferRow): Transfer {
    const live = this.running.get(row.id);
    return live ? this.view(live.row, live) : this.view(row);
  }

  /**
   * Recovery at start: transfers that were running when the node stopped are marked failed
   * (INTERRUPTED) and the temp file they were writing is removed; queued ones are queued again.
   */
  async start(): Promise<void> {
    for (const row of await this.repository.withStates(['running'])) {
      await this.removeRecordedTemp(row);
      const now = this.now();
      await this.repository.update(row.id, {
        state: 'failed',
        error_code: 'INTERRUPTED',
        error_message: 'the storage node stopped while the transfer was running; retry it',
        finished_at: now,
        updated_at: now,
        temp_mount_id: null,
        temp_path: null,
      });
      this.logger.warn({ transferId: row.id }, 'transfer interrupted by a stop of the node');
    }
    for (const row of await this.repository.withStates(['queued'])) this.enqueue(row);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    for (const live of this.running.values()) {
      live.stopReason = 'shutdown';
      live.controller.abort(new Error('the storage node is stopping'));
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.runs]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  private async removeRecordedTemp(row: TransferRow): Promise<void> {
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

  async create(
    identity: Identity,
    kind: 'copy' | 'move',
    sourceMountId: string,
    request: TransferRequest,
  ): Promise<Transfer> {
    const sourcePath = parseMountPath(request.path);
    const targetPath = parseMountPath(request.targetPath);
    const targetMountId = request.targetMountId ?? sourceMountId;
    const source = await this.mounts.get(sourceMountId);
    const target = await this.mounts.get(targetMountId);
    if (targetPath === '')
      throw storageErrors.invalidTarget('the target must name a file or folder, not the mount root');
    if (kind === 'move' && sourcePath === '')
      throw storageErrors.invalidTarget('the mount root cannot be moved');
    if (sourceMountId === targetMountId && isSameOrBelow(targetPath, sourcePath)) {
      throw storageErrors.invalidTarget('a file or folder cannot be copied or moved onto or into itself');
    }
    const entry = await source.provider.stat(sourcePath);
    if (!entry) throw storageErrors.pathNotFound();
    const parent = await target.provider.stat(parentOf(targetPath));
    if (!parent) throw new AppError(404, 'NOT_FOUND', 'the target folder does not exist');
    if (parent.type !== 'dir') throw storageErrors.notADirectory();
    const existing = await target.provider.stat(targetPath);
    if (existing && !request.overwrite) throw storageErrors.alreadyExists();
    if (existing && existing.type !== entry.type) {
      throw storageErrors.invalidTarget(
        `the target exists and is a ${existing.type === 'dir' ? 'folder' : 'file'}`,
      );
    }
    const now = this.now();
    const row: TransferRow = {
      id: randomUUID(),
      kind,
      state: 'queued',
      source_mount_id: source.id,
      source_path: sourcePath,
      target_mount_id: target.id,
      target_path: targetPath,
      overwrite: request.overwrite,
      max_bytes_per_second: request.maxBytesPerSecond ?? null,
      bytes_done: 0,
      bytes_total: entry.type === 'file' ? entry.size : 0,
      files_done: 0,
      files_total: entry.type === 'file' ? 1 : 0,
      error_code: null,
      error_message: null,
      attempt: 1,
      temp_mount_id: null,
      temp_path: null,
      created_by: identity.username,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    await this.repository.insert(row);
    this.logger.info(
      { transferId: row.id, kind, from: sourcePath, to: targetPath, by: identity.username },
      'transfer queued',
    );
    this.events.state(this.view(row));
    this.enqueue(row);
    return this.view(row);
  }

  async get(id: string): Promise<Transfer> {
    const row = await this.repository.get(id);
    if (!row) throw transferNotFound();
    return this.current(row);
  }

  async list(query: { state?: TransferState; page: number; pageSize: number }) {
    const { items, total } = await this.repository.page(query);
    return {
      items: items.map((row) => this.current(row)),
      total,
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  /** Queued and running transfers (the event stream's first frames). */
  async active(): Promise<Transfer[]> {
    return (await this.repository.withStates(['queued', 'running'])).map((row) => this.current(row));
  }

  async activeForMount(mountId: string): Promise<boolean> {
    return this.repository.activeForMount(mountId);
  }

  async cancel(id: string): Promise<Transfer> {
    const row = await this.repository.get(id);
    if (!row) throw transferNotFound();
    const live = this.running.get(id);
    if (live) {
      live.stopReason = 'cancel';
      live.controller.abort(new Error('cancelled'));
      return this.view(live.row, live);
    }
    if (row.state !== 'queued') {
      throw new AppError(409, 'TRANSFER_FINISHED', `the transfer is ${row.state} and cannot be cancelled`);
    }
    const index = this.queue.findIndex((queued) => queued.id === id);
    if (index >= 0) this.queue.splice(index, 1);
    const now = this.now();
    const changes = { state: 'cancelled' as const, finished_at: now, updated_at: now };
    await this.repository.update(id, changes);
    const updated = { ...row, ...changes };
    this.events.state(this.view(updated));
    return this.view(updated);
  }

  async retry(id: string): Promise<Transfer> {
    const row = await this.repository.get(id);
    if (!row) throw transferNotFound();
    if ((row.state !== 'failed' && row.state !== 'cancelled') || this.running.has(id)) {
      throw new AppError(409, 'TRANSFER_NOT_RETRYABLE', `a ${row.state} transfer cannot be retried`);
    }
    const now = this.now();
    const changes = {
      state: 'queued' as const,
      attempt: row.attempt + 1,
      error_code: null,
      error_message: null,
      bytes_done: 0,
      files_done: 0,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    await this.repository.update(id, changes);
    const updated: TransferRow = { ...row, ...changes };
    this.events.state(this.view(updated));
    this.enqueue(updated);
    return this.view(updated);
  }

  private enqueue(row: TransferRow): void {
    if (this.stopped) return;
    this.queue.push(row);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency && this.queue.length > 0) {
      const row = this.queue.shift()!;
      const live: LiveTransfer = {
        row: { ...row },
        controller: new AbortController(),
        stopReason: null,
        rate: new RateMeter(),
        lastPersistAt: 0,
        budget: { limit: row.max_bytes_per_second, startedAt: Date.now(), bytes: 0 },
      };
      this.running.set(row.id, live);
      const run: Promise<void> = this.run(live)
        .catch((error: unknown) => {
          this.logger.error({ transferId: row.id, err: error }, 'transfer bookkeeping failed');
        })
        .finally(() => {
          this.running.delete(row.id);
          this.runs.delete(run);
          this.pump();
        });
      this.runs.add(run);
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
    this.events.state(this.view(row, live));
  }

  private progressed(live: LiveTransfer): void {
    const now = Date.now();
    live.rate.add(now, live.row.bytes_done);
    live.row.updated_at = this.now();
    this.events.progress(this.view(live.row, live));
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

  private async run(live: LiveTransfer): Promise<void> {
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
