import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { ScanMode } from '@svc/contracts';
import { errorCode } from '../../../platform/db/errors.js';
import type { MediaDatabase, MediaScansTable } from '../media.db.js';

export type ScanRow = Selectable<MediaScansTable>;
export type ScanProgress = Pick<
  Updateable<MediaScansTable>,
  | 'phase'
  | 'files_seen'
  | 'files_total'
  | 'files_skipped'
  | 'items_added'
  | 'items_updated'
  | 'items_removed'
  | 'probe_tools'
  | 'error'
>;

/** What a scan counts while it runs (all zero when it starts). */
export interface ScanCounters {
  files_seen: number;
  files_total: number;
  files_skipped: number;
  items_added: number;
  items_updated: number;
  items_removed: number;
}

export const zeroScanCounters = (): ScanCounters => ({
  files_seen: 0,
  files_total: 0,
  files_skipped: 0,
  items_added: 0,
  items_updated: 0,
  items_removed: 0,
});

/** Scans and webhook scrape tasks: a queue in the database, so any media instance can run them. */
export class ScansRepository {
  constructor(private readonly db: Kysely<MediaDatabase>) {}

  async get(id: string): Promise<ScanRow | undefined> {
    return this.db.selectFrom('media_scans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The running scan of a library, else its newest one. */
  async current(libraryId: string): Promise<ScanRow | undefined> {
    return this.db
      .selectFrom('media_scans')
      .selectAll()
      .where('library_id', '=', libraryId)
      .orderBy(sql`(state = 'running')`, 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The newest scan of each library. */
  async latestOf(libraryIds: readonly string[]): Promise<Map<string, ScanRow>> {
    const found = new Map<string, ScanRow>();
    if (libraryIds.length === 0) return found;
    const rows = await this.db
      .selectFrom('media_scans')
      .selectAll()
      .distinctOn('library_id')
      .where('library_id', 'in', libraryIds)
      .orderBy('library_id')
      .orderBy(sql`(state = 'running')`, 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    for (const row of rows) found.set(row.library_id, row);
    return found;
  }

  /** Libraries and how many of them have finished a scan successfully (the dashboard's checklist). */
  async setupCounts(): Promise<{ libraries: number; scannedLibraries: number }> {
    const row = await this.db
      .selectFrom('libraries as l')
      .select((eb) => [
        eb.fn.countAll<number>().as('libraries'),
        eb.fn
          .countAll<number>()
          .filterWhere(
            eb.exists(
              eb
                .selectFrom('media_scans as s')
                .select('s.id')
                .whereRef('s.library_id', '=', 'l.id')
                .where('s.state', '=', 'succeeded'),
            ),
          )
          .as('scanned'),
      ])
      .executeTakeFirstOrThrow();
    return { libraries: Number(row.libraries), scannedLibraries: Number(row.scanned) };
  }

  async pendingCount(libraryId: string): Promise<number> {
    const row = await this.db
      .selectFrom('media_scans')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('library_id', '=', libraryId)
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  async hasRunning(libraryId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('media_scans')
      .select('id')
      .where('library_id', '=', libraryId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Queues a manual scan of a whole library unless one is already queued or running (then returns it as
   * `conflict`). Webhook tasks still waiting for the library are cancelled: the scan covers them. The
   * library row is locked meanwhile, so two requests cannot both queue one.
   */
  async queueManual(
    libraryId: string,
    mode: ScanMode,
    now: Date,
  ): Promise<{ scan: ScanRow; conflict: boolean } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const library = await trx
        .selectFrom('libraries')
        .select('id')
        .where('id', '=', libraryId)
        .forUpdate()
        .executeTakeFirst();
      if (!library) return undefined;
      const active = await trx
        .selectFrom('media_scans')
        .selectAll()
        .where('library_id', '=', libraryId)
        .where('trigger', '=', 'manual')
        .where('state', 'in', ['queued', 'running'])
        .executeTakeFirst();
      if (active) return { scan: active, conflict: true };
      const id = randomUUID();
      await trx
        .updateTable('media_scans')
        .set({ state: 'cancelled', phase: 'done', finished_at: now, error: `superseded by scan ${id}` })
        .where('library_id', '=', libraryId)
        .where('trigger', '=', 'webhook')
        .where('state', '=', 'queued')
        .execute();
      const scan = await trx
        .insertInto('media_scans')
        .values(queuedScan({ id, libraryId, mode, trigger: 'manual', sourceId: null, path: null }, now))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { scan, conflict: false };
    });
  }

  /** Queues webhook tasks (incremental, one source subtree each); a task already waiting is reused. */
  async queueTasks(
    tasks: readonly { libraryId: string; sourceId: string; path: string }[],
    now: Date,
  ): Promise<{ scan: ScanRow; deduplicated: boolean }[]> {
    return this.db.transaction().execute(async (trx) => {
      const queued: { scan: ScanRow; deduplicated: boolean }[] = [];
      for (const task of tasks) {
        const waiting = await trx
          .selectFrom('media_scans')
          .selectAll()
          .where('library_id', '=', task.libraryId)
          .where('scope_source_id', '=', task.sourceId)
          .where('scope_path', '=', task.path)
          .where('state', '=', 'queued')
          .executeTakeFirst();
        if (waiting) {
          queued.push({ scan: waiting, deduplicated: true });
          continue;
        }
        const scan = await trx
          .insertInto('media_scans')
          .values(queuedScan({ id: randomUUID(), ...task, mode: 'incremental', trigger: 'webhook' }, now))
          .returningAll()
          .executeTakeFirstOrThrow();
        queued.push({ scan, deduplicated: false });
      }
      return queued;
    });
  }

  /**
   * Claims the oldest queued scan of a library that has none running, for this instance. The unique index
   * on running scans makes a claim race between instances end with one winner.
   */
  async claimNext(now: Date, skipLibraries: ReadonlySet<string>): Promise<ScanRow | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let candidates = this.db
        .selectFrom('media_scans as s')
        .select(['s.id', 's.library_id'])
        .where('s.state', '=', 'queued')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('media_scans as r')
                .select('r.id')
                .whereRef('r.library_id', '=', 's.library_id')
                .where('r.state', '=', 'running'),
            ),
          ),
        );
      if (skipLibraries.size > 0) candidates = candidates.where('s.library_id', 'not in', [...skipLibraries]);
      const next = await candidates.orderBy('s.created_at').orderBy('s.id').limit(1).executeTakeFirst();
      if (!next) return undefined;
      try {
        const claimed = await this.db
          .updateTable('media_scans')
          .set({
            state: 'running',
            phase: 'walking',
            started_at: now,
            heartbeat_at: now,
            ...zeroScanCounters(),
            error: null,
          })
          .where('id', '=', next.id)
          .where('state', '=', 'queued')
          .returningAll()
          .executeTakeFirst();
        if (claimed) return claimed;
      } catch (error) {
        if (errorCode(error) !== '23505') throw error;
      }
    }
    return undefined;
  }

  async progress(id: string, progress: ScanProgress, now: Date): Promise<void> {
    await this.db
      .updateTable('media_scans')
      .set({ ...progress, heartbeat_at: now })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }

  async heartbeat(ids: readonly string[], now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('media_scans')
      .set({ heartbeat_at: now })
      .where('id', 'in', ids)
      .where('state', '=', 'running')
      .execute();
  }

  async finish(
    id: string,
    state: 'succeeded' | 'failed' | 'cancelled',
    error: string | null,
    now: Date,
  ): Promise<void> {
    await this.db
      .updateTable('media_scans')
      .set({ state, phase: 'done', error, finished_at: now, heartbeat_at: now })
      .where('id', '=', id)
      .execute();
  }

  /** Puts a scan interrupted by shutdown back in the queue; it starts over on the next claim. */
  async requeue(id: string): Promise<void> {
    await this.db
      .updateTable('media_scans')
      .set({ state: 'queued', phase: 'queued', started_at: null, heartbeat_at: null })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }

  /** Fails running scans whose instance stopped sending heartbeats (it died); returns their ids. */
  async failStale(heartbeatBefore: Date, now: Date, exclude: readonly string[]): Promise<string[]> {
    let query = this.db
      .updateTable('media_scans')
      .set({
        state: 'failed',
        phase: 'done',
        finished_at: now,
        error: 'interrupted: the instance running the scan stopped',
      })
      .where('state', '=', 'running')
      .where('heartbeat_at', '<', heartbeatBefore);
    if (exclude.length > 0) query = query.where('id', 'not in', exclude);
    const rows = await query.returning('id').execute();
    return rows.map((row) => row.id);
  }
}

/** A new scan row as it waits in the queue. */
function queuedScan(
  scan: {
    id: string;
    libraryId: string;
    mode: ScanMode;
    trigger: 'manual' | 'webhook';
    sourceId: string | null;
    path: string | null;
  },
  now: Date,
) {
  return {
    id: scan.id,
    library_id: scan.libraryId,
    mode: scan.mode,
    trigger: scan.trigger,
    scope_source_id: scan.sourceId,
    scope_path: scan.path,
    state: 'queued' as const,
    phase: 'queued' as const,
    probe_tools: '[]',
    error: null,
    created_at: now,
  };
}
