import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import {
  openServiceDatabase,
  type AnyServiceDatabase,
  type ServiceDatabaseName,
} from '../platform/db/index.js';
import { describeError } from '../platform/db/errors.js';
import { PG_TYPES } from '../platform/db/value-types.js';
import type { Logger } from '../platform/logger.js';

/** Where a set of service databases lives: the bundled store of a data folder, or a PostgreSQL server. */
export type DatabaseLocation =
  { mode: 'bundled'; dataDir: string } | { mode: 'external'; databaseUrl: string; nameSuffix: string };

/** The part of a database handle a copy reads from. */
export interface SourceDatabase {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service database
  readonly db: Kysely<any>;
  readonly databaseName: string;
  close(): Promise<void>;
}

/** A URL for messages: no password. */
export function describeServer(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}`;
  } catch {
    return 'an unparsable URL';
  }
}

export function databaseNameAt(location: DatabaseLocation, name: ServiceDatabaseName): string {
  return location.mode === 'external' ? `${name}${location.nameSuffix}` : name;
}

/** Opens (creating when missing) a service database at a location, as the services themselves do. */
export function openAt(
  location: DatabaseLocation,
  name: ServiceDatabaseName,
  logger: Logger,
): Promise<AnyServiceDatabase> {
  return location.mode === 'bundled'
    ? openServiceDatabase({ name, mode: 'bundled', dataDir: location.dataDir, logger })
    : openServiceDatabase({
        name,
        mode: 'external',
        dataDir: '/nonexistent',
        databaseUrl: location.databaseUrl,
        nameSuffix: location.nameSuffix,
        logger,
      });
}

/**
 * Opens an existing database of any name on a server, for reading (a legacy install's databases need not be
 * named like ours). Never creates it: a missing database is an error naming it.
 */
export async function openExistingDatabase(databaseUrl: string, database: string): Promise<SourceDatabase> {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  const pool = new pg.Pool({
    connectionString: url.href,
    max: 2,
    connectionTimeoutMillis: 5_000,
    types: PG_TYPES,
    fallback_application_name: 'svc migrate',
  });
  pool.on('error', () => {
    // a cut idle connection surfaces through the next query
  });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`SELECT 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw new Error(
      `cannot open database ${database} at ${describeServer(databaseUrl)}: ${describeError(error)}`,
    );
  }
  return { db, databaseName: database, close: () => db.destroy() };
}

/** Sessions on the handle's database other than this one (PostgreSQL only): services still running. */
export async function otherSessions(database: SourceDatabase): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    SELECT count(*)::int AS count FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid()
       AND coalesce(application_name, '') <> 'svc migrate'`.execute(database.db);
  return rows[0]!.count;
}
