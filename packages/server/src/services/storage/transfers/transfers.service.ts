import { randomUUID } from 'node:crypto';
import type { Identity, Transfer, TransferRequest, TransferState } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';
import type { MountsService } from '../mounts.service.js';
import { isSameOrBelow, parentOf, parseMountPath } from '../path-safety.js';
import { storageErrors } from '../storage-errors.js';
import { liveTransfer, transferView, type LiveTransfer } from './live-transfer.js';
import type { TransferRunner } from './transfer-runner.js';
import type { TransferEvents } from './transfer-events.js';
import type { TransferRow, TransfersRepository } from './transfers.repository.js';

const STOP_WAIT_MS = 10_000;

const transferNotFound = () => new AppError(404, 'NOT_FOUND', 'transfer not found');

/**
 * Copies and moves as background transfers: persisted in storage_transfers, queued and run a few at a time
 * (each by the TransferRunner), cancelled, retried and settled after a restart.
 */
export class TransfersService {
  private readonly queue: TransferRow[] = [];
  private readonly running = new Map<string, LiveTransfer>();
  private readonly runs = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly repository: TransfersRepository,
    private readonly mounts: MountsService,
    private readonly runner: TransferRunner,
    private readonly events: TransferEvents,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly concurrency = 2,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  private current(row: TransferRow): Transfer {
    const live = this.running.get(row.id);
    return live ? transferView(live.row, live) : transferView(row);
  }

  /**
   * Recovery at start: transfers that were running when the node stopped are marked failed
   * (INTERRUPTED) and the temp file they were writing is removed; queued ones are queued again.
   */
  async start(): Promise<void> {
    for (const row of await this.repository.withStates(['running'])) {
      await this.runner.removeRecordedTemp(row);
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
    this.events.state(transferView(row));
    this.enqueue(row);
    return transferView(row);
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
    // A transfer that has ended (or is being stopped) but whose runner has not let go of it yet is
    // refused like any ended one, rather than "cancelled" a second time.
    if (live && (live.controller.signal.aborted || !['queued', 'running'].includes(live.row.state))) {
      throw new AppError(
        409,
        'TRANSFER_FINISHED',
        `the transfer is ${live.row.state} and cannot be cancelled`,
      );
    }
    if (live) {
      live.stopReason = 'cancel';
      live.controller.abort(new Error('cancelled'));
      return transferView(live.row, live);
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
    this.events.state(transferView(updated));
    return transferView(updated);
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
    this.events.state(transferView(updated));
    this.enqueue(updated);
    return transferView(updated);
  }

  private enqueue(row: TransferRow): void {
    if (this.stopped) return;
    this.queue.push(row);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency && this.queue.length > 0) {
      const row = this.queue.shift()!;
      const live = liveTransfer(row);
      this.running.set(row.id, live);
      const run: Promise<void> = this.runner
        .run(live)
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
}
