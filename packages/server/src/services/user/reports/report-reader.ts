import { sql, type Kysely } from 'kysely';
import type { DatabaseBackend } from '../../../platform/db/index.js';
import type { UserDatabase } from '../user.db.js';

/**
 * At most this many requests fan out over several connections at once; others run their queries one after the
 * other. A fanning request holds its first connection while it waits for the others, so an unbounded number
 * of them could take the whole pool (10) and wait for each other.
 */
const MAX_FAN_OUTS = 2;

/**
 * Runs the report queries: every report reads one consistent snapshot, in a transaction with a memory budget
 * and a time limit. One reader is shared by the report repositories, so the fan-out limit holds for all of them.
 */
export class ReportReader {
  private fanOuts = 0;

  constructor(
    private readonly db: Kysely<UserDatabase>,
    private readonly backend: DatabaseBackend,
  ) {}

  /** Settings of a report transaction: a memory budget, no JIT compilation, no parallel workers, a time limit. */
  private settings(): string {
    // A month's hash aggregates fit in 64 MB. The embedded database keeps its WebAssembly memory once grown,
    // so it gets less. JIT compilation costs more than it saves on these short aggregates. Parallel workers
    // made the report slower on a busy two-core machine (measured at 10 M events, docs/report.md): the rollups
    // leave queries of 100-300 ms, where starting workers and gathering their rows costs more than they save,
    // and a parallel plan prefers a sequential scan of a whole rollup table to the window's index range.
    const workMem = this.backend === 'postgres' ? '64MB' : '32MB';
    return [
      `SET LOCAL work_mem = '${workMem}'`,
      'SET LOCAL jit = off',
      'SET LOCAL max_parallel_workers_per_gather = 0',
      "SET LOCAL statement_timeout = '60s'",
    ].join('; ');
  }

  /** Runs report queries in one read-only snapshot (repeatable read). */
  read<T>(work: (db: Kysely<UserDatabase>) => Promise<T>): Promise<T> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        await sql.raw(this.settings()).execute(trx);
        return work(trx);
      });
  }

  /**
   * Runs independent report queries over one snapshot. On PostgreSQL each runs on its own connection (the first
   * transaction exports its snapshot, the others import it), so they use several cores and still see exactly
   * the same rows; the embedded database has one session and runs them one after the other.
   */
  async readAll<T extends readonly unknown[]>(works: {
    [K in keyof T]: (db: Kysely<UserDatabase>) => Promise<T[K]>;
  }): Promise<T> {
    const list = works as readonly ((db: Kysely<UserDatabase>) => Promise<unknown>)[];
    if (this.backend !== 'postgres' || list.length < 2 || this.fanOuts >= MAX_FAN_OUTS) {
      return this.read(async (db) => {
        const results: unknown[] = [];
        for (const work of list) results.push(await work(db));
        return results as unknown as T;
      });
    }
    this.fanOuts += 1;
    try {
      return await this.fanOut(list);
    } finally {
      this.fanOuts -= 1;
    }
  }

  private fanOut<T>(list: readonly ((db: Kysely<UserDatabase>) => Promise<unknown>)[]): Promise<T> {
    return this.read(async (first) => {
      const exported = await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(first);
      const snapshot = exported.rows[0]!.id;
      if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
      const results = await Promise.all(
        list.map((work, index) =>
          index === 0
            ? work(first)
            : this.db
                .transaction()
                .setIsolationLevel('repeatable read')
                .setAccessMode('read only')
                .execute(async (trx) => {
                  await sql.raw(`SET TRANSACTION SNAPSHOT '${snapshot}'`).execute(trx);
                  await sql.raw(this.settings()).execute(trx);
                  return work(trx);
                }),
        ),
      );
      return results as unknown as T;
    });
  }
}
