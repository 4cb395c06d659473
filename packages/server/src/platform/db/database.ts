import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from '../logger.js';
import {
  DatabaseError,
  DatabaseUnavailableError,
  describeError,
  errorCode,
  MigrationError,
  unavailableCause,
} from './errors.js';
import { openBundledDatabase } from './pglite-cluster.js';
import { PGliteDialect, quoteIdentifier } from './pglite-dialect.js';
import { PG_TYPES } from './value-types.js';

export { DatabaseError, MigrationError };

export type ServiceDatabaseName = 'svc_user' | 'svc_media' | 'svc_config' | 'yiyi_storage';
export type DatabaseBackend = 'pglite' | 'postgres';

export const SERVICE_DATABASE_NAMES: readonly ServiceDatabaseName[] = [
  'svc_user',
  'svc_media',
  'svc_config',
  'yiyi_storage',
];

export interface Migration {
  /** 'V001__init': V, three digits, two underscores, lower-case words. */
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration sees no schema type
  up(db: Kysely<any>): Promise<void>;
}

export interface DatabaseOptions {
  name: ServiceDatabaseName;
  mode: 'bundled' | 'external';
  /** bundled: the embedded databases live under <dataDir>/db/ */
  dataDir: string;
  /** external: postgres://user[:password]@host[:port][/database] (the database only serves to create ours) */
  databaseUrl?: string;
  /** external: appended to the database name */
  nameSuffix?: string;
  logger: Logger;
}

export interface ServiceDatabase<DB = unknown> {
  readonly db: Kysely<DB>;
  readonly backend: DatabaseBackend;
  /** e.g. 'svc_user' or 'svc_user_t1a2b3' */
  readonly databaseName: string;
  /** Idempotent. */
  close(): Promise<void>;
}

/** What runMigrations and withAdvisoryLock need besides the public handle. */
export type DatabaseInternals =
  | { backend: 'postgres'; logger: Logger; pool: pg.Pool }
  | { backend: 'pglite'; logger: Logger; heldLocks: Set<string> };

/** Any schema: ServiceDatabase<X> is not assignable to ServiceDatabase<unknown> (Kysely is invariant in DB). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyServiceDatabase = ServiceDatabase<any>;

const internals = new WeakMap<AnyServiceDatabase, DatabaseInternals>();

export function databaseInternals(database: AnyServiceDatabase): DatabaseInternals {
  const found = internals.get(database);
  if (!found) throw new DatabaseError('this database handle was not opened by openServiceDatabase');
  return found;
}

const CONNECT_TIMEOUT_MS = 5_000;
const POOL_MAX = 10;
const SUFFIX_PATTERN = /^[a-z0-9_]{0,30}$/;

function createHandle<DB>(
  db: Kysely<DB>,
  backend: DatabaseBackend,
  databaseName: string,
  inner: DatabaseInternals,
  /** Runs after Kysely is destroyed, also when that failed (Kysely skips its driver if never used). */
  afterDestroy: () => Promise<void>,
): ServiceDatabase<DB> {
  let closing: Promise<void> | undefined;
  const handle: ServiceDatabase<DB> = {
    db,
    backend,
    databaseName,
    close() {
      closing ??= (async () => {
        try {
          await db.destroy();
        } finally {
          await afterDestroy();
          inner.logger.info({ db: databaseName, backend }, 'database closed');
        }
      })();
      return closing;
    },
  };
  internals.set(handle, inner);
  return handle;
}

/** Opens (and in external mode creates if needed) the database of one service. */
export async function openServiceDatabase<DB>(options: DatabaseOptions): Promise<ServiceDatabase<DB>> {
  if (!SERVICE_DATABASE_NAMES.includes(options.name)) {
    throw new DatabaseError(`unknown service database '${String(options.name)}'`);
  }
  switch (options.mode) {
    case 'bundled':
      return openBundled<DB>(options);
    case 'external':
      return openExternal<DB>(options);
    default:
      throw new DatabaseError(`unknown database mode '${String(options.mode)}' (bundled or external)`);
  }
}

async function openBundled<DB>(options: DatabaseOptions): Promise<ServiceDatabase<DB>> {
  const { name, logger } = options;
  const opened = await openBundledDatabase(name, options.dataDir, logger);
  const db = new Kysely<DB>({
    dialect: new PGliteDialect({
      pglite: opened.session.pglite,
      session: opened.session,
      schema: opened.schema,
      logger,
      label: name,
      // the instance may serve other databases: the handle's close() releases this one
      onDestroy: () => Promise.resolve(),
    }),
  });
  logger.info({ db: name, backend: 'pglite', dir: opened.dir, schema: opened.schema }, 'database opened');
  return createHandle(
    db,
    'pglite',
    name,
    { backend: 'pglite', logger, heldLocks: new Set() },
    opened.release,
  );
}

interface ServerAddress {
  url: URL;
  /** host:port for messages, never credentials */
  where: string;
  /** strings that must never show up in a message */
  secrets: string[];
}

function parseServerUrl(databaseUrl: string): ServerAddress {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new DatabaseError('the PostgreSQL URL (SVC_DATABASE_URL) is not a valid URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DatabaseError(
      'the PostgreSQL URL (SVC_DATABASE_URL) must start with postgres:// or postgresql://',
    );
  }
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const secrets = [url.password, safeDecode(url.password), url.searchParams.get('password') ?? ''].filter(
    (s) => s.length > 0,
  );
  return { url, where: `${host}:${port}`, secrets };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function redact(message: string, secrets: readonly string[]): string {
  let result = message;
  for (const secret of secrets) result = result.split(secret).join('***');
  return result;
}

/** The URL's own database name, if it names one. */
function urlDatabase(url: URL): string | undefined {
  const name = safeDecode(url.pathname.replace(/^\//, ''));
  return name.length > 0 ? name : undefined;
}

function withDatabase(url: URL, database: string): string {
  const copy = new URL(url.href);
  copy.pathname = `/${encodeURIComponent(database)}`;
  return copy.href;
}

/** A failed connect; one of a server that is down, starting or full is a DatabaseUnavailableError (503). */
function connectError(server: ServerAddress, database: string, err: unknown): DatabaseError {
  const ErrorClass = unavailableCause(err) ? DatabaseUnavailableError : DatabaseError;
  return new ErrorClass(
    redact(
      `cannot connect to PostgreSQL at ${server.where} (${database}): ${describeError(err)}`,
      server.secrets,
    ),
    { cause: err },
  );
}

/** A short-lived client on the server's maintenance database (the URL's own, else 'postgres'). */
async function withAdminClient<T>(
  server: ServerAddress,
  avoid: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const own = urlDatabase(server.url);
  const adminDb = own && own !== avoid ? own : 'postgres';
  const client = new pg.Client({
    connectionString: withDatabase(server.url, adminDb),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => {
    // a dropped admin connection surfaces through the pending query
  });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw connectError(server, adminDb, err);
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabase(server: ServerAddress, databaseName: string, logger: Logger): Promise<void> {
  await withAdminClient(server, databaseName, async (client) => {
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`);
      logger.info({ db: databaseName, server: server.where }, 'database created');
    } catch (err) {
      // 42P04 duplicate_database, 23505 on pg_database's unique index: another starter was faster
      const code = errorCode(err);
      if (code === '42P04' || code === '23505') return;
      throw new DatabaseError(
        redact(
          `cannot create database ${databaseName} on PostgreSQL at ${server.where}: ${describeError(err)}`,
          server.secrets,
        ),
        { cause: err },
      );
    }
  });
}

async function probe(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  client.release();
}

async function openExternal<DB>(options: DatabaseOptions): Promise<ServiceDatabase<DB>> {
  const { name, logger } = options;
  if (!options.databaseUrl) {
    throw new DatabaseError(`external database mode needs a PostgreSQL URL (SVC_DATABASE_URL) for ${name}`);
  }
  const suffix = options.nameSuffix ?? '';
  if (!SUFFIX_PATTERN.test(suffix)) {
    throw new DatabaseError(`database name suffix '${suffix}' may hold only a-z, 0-9 and _ (at most 30)`);
  }
  const databaseName = `${name}${suffix}`;
  const server = parseServerUrl(options.databaseUrl);

  const pool = new pg.Pool({
    connectionString: withDatabase(server.url, databaseName),
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    fallback_application_name: `svc ${databaseName}`,
    types: PG_TYPES,
  });
  pool.on('connect', (client) => {
    // pg-pool listens for errors only on idle clients: a connection cut while it is checked out (inside
    // a transaction, under an advisory lock) would throw from the emitter and end the process. Its user
    // sees the failure on its next query, and the pool drops a dead client when it is released or idle.
    client.on('error', (err) => {
      logger.warn(
        { db: databaseName, server: server.where, err: describeError(err) },
        'PostgreSQL connection lost',
      );
    });
  });
  pool.on('error', () => {
    // an idle connection was cut (server restart, network), logged above; the pool replaces it on use
  });

  try {
    try {
      await probe(pool);
    } catch (err) {
      if (errorCode(err) !== '3D000') throw connectError(server, databaseName, err); // 3D000: no such database
      await createDatabase(server, databaseName, logger);
      try {
        await probe(pool);
      } catch (again) {
        throw connectError(server, databaseName, again);
      }
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }

  // Queries take their connection here: one that cannot be had says which server, and that it is passing.
  const queryPool = {
    connect: () =>
      pool.connect().catch((err: unknown) => Promise.reject(connectError(server, databaseName, err))),
    end: () => pool.end(),
  };
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: queryPool }) });
  logger.info({ db: databaseName, backend: 'postgres', server: server.where }, 'database opened');
  // Kysely ends the pool only if it was ever used: a handle closed unused must end it too.
  return createHandle(db, 'postgres', databaseName, { backend: 'postgres', logger, pool }, async () => {
    if (!pool.ending && !pool.ended) await pool.end();
  });
}

/** Drops an external database, closing other sessions on it (tests, and svc migrate distributed-rollback). */
export async function dropExternalDatabase(databaseUrl: string, databaseName: string): Promise<void> {
  const server = parseServerUrl(databaseUrl);
  await withAdminClient(server, databaseName, async (client) => {
    try {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseName)} WITH (FORCE)`);
    } catch (err) {
      if (errorCode(err) !== '42601') {
        throw new DatabaseError(
          redact(`cannot drop database ${databaseName}: ${describeError(err)}`, server.secrets),
          {
            cause: err,
          },
        );
      }
      // before PostgreSQL 13 there is no WITH (FORCE)
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [databaseName],
      );
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseName)}`);
    }
  });
}
