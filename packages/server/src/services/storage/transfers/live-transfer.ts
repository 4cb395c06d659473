import type { Transfer } from '@svc/contracts';
import type { TransferRow } from './transfers.repository.js';

const RATE_WINDOW_MS = 3_000;

/** Bytes per second over the last few seconds. */
export class RateMeter {
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
export interface Budget {
  limit: number | null;
  startedAt: number;
  bytes: number;
}

/** A transfer while it runs: its row as it changes, how to stop it, and its rate. */
export interface LiveTransfer {
  row: TransferRow;
  controller: AbortController;
  stopReason: 'cancel' | 'shutdown' | null;
  rate: RateMeter;
  lastPersistAt: number;
  budget: Budget;
}

export function liveTransfer(row: TransferRow): LiveTransfer {
  return {
    row: { ...row },
    controller: new AbortController(),
    stopReason: null,
    rate: new RateMeter(),
    lastPersistAt: 0,
    budget: { limit: row.max_bytes_per_second, startedAt: Date.now(), bytes: 0 },
  };
}

/** The API view of a transfer row (the rate only while it runs). */
export function transferView(row: TransferRow, live?: LiveTransfer): Transfer {
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
