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

/** After this long waiting for the single PGlite connection, a warning names the likely cause. */
const SLOW_WAIT_MS = 10_000;

/** First come, first served lock without a timeout. */
export class Mutex {
  #locked = false;
  readonly #waiting: (() => void)[] = [];

  get locked(): boolean {
    return this.#locked;
  }

  acquire(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#locked = false;
  }
}

const AFFECTING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

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
 * query, or a whole transaction), so the mutex makes every holder exclusive: statements of two
 * transactions never interleave on the session.
 */
class PGliteDriver implements Driver {
  readonly #mutex = new Mutex();
  readonly #connection: PGliteConnection;

  constructor(
    private readonly pglite: PGlite,
    private readonly logger: Logger,
    private readonly label: string,
  ) {
    this.#connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#mutex.locked) {
      await this.#mutex.acquire();
      return this.#connection;
    }
    const timer = setTimeout(() => {
      this.logger.warn(
        { db: this.label },
        `waited ${SLOW_WAIT_MS / 1000}s for the embedded database connection; code running inside a transaction ` +
          'must use the transaction handle, not the outer db (that waits for itself)',
      );
    }, SLOW_WAIT_MS);
    timer.unref();
    try {
      await this.#mutex.acquire();
    } finally {
      clearTimeout(timer);
    }
    return this.#connection;
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

  async releaseConnection(): Promise<void> {
    this.#mutex.release();
  }

  async destroy(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

function savepointCommand(command: string, name: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}

export interface PGliteDialectConfig {
  /** An open PGlite instance; the dialect closes it when Kysely is destroyed. */
  pglite: PGlite;
  logger: Logger;
  /** Database name for log lines. */
  label: string;
}

/** Kysely dialect for an embedded PGlite database: PostgreSQL SQL, one serialised session. */
export class PGliteDialect implements Dialect {
  constructor(private readonly config: PGliteDialectConfig) {}

  createDriver(): Driver {
    return new PGliteDriver(this.config.pglite, this.config.logger, this.config.label);
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
