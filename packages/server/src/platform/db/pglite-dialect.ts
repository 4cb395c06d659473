import type { PGlite, Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  createQueryId,
  IdentifierNode,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  RawNode,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Logger } from '../logger.js';
import { DatabaseUnavailableError } from './errors.js';

/** After this long waiting for the single PGlite connection, a warning names the likely cause. */
const SLOW_WAIT_MS = 10_000;

/**
 * How long a query waits for the embedded database's one session before it fails as unavailable (503):
 * the session's holders are short, so a wait this long means one is stuck, and a request must not hang.
 */
const ACQUIRE_TIMEOUT_MS = 60_000;

/** First come, first served lock; a waiter may give up after a time. */
export class Mutex {
  #locked = false;
  readonly #waiting: (() => void)[] = [];

  get locked(): boolean {
    return this.#locked;
  }

  /** Without a time, waits as long as it takes; with one, rejects with what `onTimeout` makes. */
  acquire(wait?: { timeoutMs: number; onTimeout: () => Error }): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      if (wait) {
        timer = setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          reject(wait.onTimeout());
        }, wait.timeoutMs);
      }
      this.#waiting.push(waiter);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#locked = false;
  }
}

const AFFECTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** Double-quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The one PostgreSQL session of a PGlite instance, shared by every dialect (every database handle) on it:
 * the mutex that hands the session to one holder at a time, and the schema its search_path is known to
 * point at (undefined: unknown).
 */
export class PGliteSession {
  readonly mutex = new Mutex();
  /** Set only by the driver, while it holds the mutex. */
  schema: string | undefined;

  constructor(readonly pglite: PGlite) {}
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    let result: Results<R> | undefined;
    if (compiledQuery.parameters.length === 0) {
      // Like pg without parameters: the simple protocol, so a raw script of several statements works.
      const results = await this.pglite.exec(compiledQuery.sql, { rowMode: 'object' });
      result = results.at(-1) as Results<R> | undefined;
    } else {
      result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters], {
        rowMode: 'object',
      });
    }
    if (!result) return { rows: [] };
    const command = result.command?.toUpperCase();
    return {
      rows: result.rows,
      numAffectedRows:
        command && AFFECTING_COMMANDS.has(command)
          ? BigInt(result.rowCount ?? result.affectedRows ?? 0)
          : undefined,
    };
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = 100,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0)
      throw new Error('chunkSize must be a positive integer');
    // PGlite has no cursors over its in-process protocol: read all, hand out in chunks.
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }
}

/**
 * One PGlite instance is one PostgreSQL session. Kysely holds a connection from acquire to release (one
 * query, or a whole transaction), so the session mutex makes every holder exclusive: statements of two
 * transactions never interleave on the session, also not when several dialects (databases kept as schemas
 * of one instance) share it. A dialect with a schema points search_path at it right after acquiring,
 * before its query or transaction starts, whenever the session was left elsewhere.
 */
class PGliteDriver implements Driver {
  readonly #session: PGliteSession;
  readonly #connection: PGliteConnection;

  constructor(private readonly config: PGliteDialectConfig) {
    this.#session = config.session ?? new PGliteSession(config.pglite);
    if (this.#session.pglite !== config.pglite) {
      throw new Error('PGliteDialect: the session belongs to another PGlite instance');
    }
    this.#connection = new PGliteConnection(config.pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const { mutex } = this.#session;
    if (mutex.locked) {
      const timer = setTimeout(() => {
        this.config.logger.warn(
          { db: this.config.label },
          `waited ${SLOW_WAIT_MS / 1000}s for the embedded database connection; code running inside a transaction ` +
            'must use the transaction handle, not the outer db (that waits for itself)',
        );
      }, SLOW_WAIT_MS);
      timer.unref();
      const timeoutMs = this.config.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS;
      try {
        await mutex.acquire({
          timeoutMs,
          onTimeout: () =>
            new DatabaseUnavailableError(
              `the embedded database ${this.config.label} stayed busy for ${timeoutMs / 1000} s`,
            ),
        });
      } finally {
        clearTimeout(timer);
      }
    } else {
      await mutex.acquire();
    }
    try {
      await this.#useSchema();
    } catch (err) {
      mutex.release();
      throw err;
    }
    return this.#connection;
  }

  /** Outside any transaction (Kysely begins one only after acquiring), so the SET stays in force. */
  async #useSchema(): Promise<void> {
    const { schema } = this.config;
    if (schema === undefined || this.#session.schema === schema) return;
    this.#session.schema = undefined;
    await this.config.pglite.exec(`SET search_path TO ${quoteIdentifier(schema)}`);
    this.#session.schema = schema;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      statement = 'start transaction';
      if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) statement += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }

  releaseConnection(): Promise<void> {
    this.#session.mutex.release();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    if (this.config.onDestroy) await this.config.onDestroy();
    else if (!this.config.pglite.closed) await this.config.pglite.close();
  }
}

function savepointCommand(command: string, name: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}

export interface PGliteDialectConfig {
  /** An open PGlite instance; the dialect closes it when Kysely is destroyed, unless onDestroy is given. */
  pglite: PGlite;
  logger: Logger;
  /** Database name for log lines. */
  label: string;
  /**
   * The schema this dialect works in: search_path is set to it (alone) before each query or transaction
   * whenever the session points elsewhere. Unset: search_path is left alone.
   */
  schema?: string;
  /** The session of pglite, shared with the other dialects on it; by default the dialect has its own. */
  session?: PGliteSession;
  /** Runs when Kysely is destroyed, instead of closing the instance (which others may still use). */
  onDestroy?: () => Promise<void>;
  /** How long a query waits for the session before failing as unavailable (default 60 s). */
  acquireTimeoutMs?: number;
}

/** Kysely dialect for an embedded PGlite database: PostgreSQL SQL, one serialised session (maybe shared). */
export class PGliteDialect implements Dialect {
  constructor(private readonly config: PGliteDialectConfig) {}

  createDriver(): Driver {
    return new PGliteDriver(this.config);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}
