import { sql, type Generated, type Kysely, type Transaction } from 'kysely';
import { advisoryLockKey } from './advisory-lock.js';
import { databaseInternals, type AnyServiceDatabase, type Migration } from './database.js';
import { DatabaseError, describeError, MigrationError } from './errors.js';

export const MIGRATIONS_TABLE = 'svc_schema_migrations';
export const MIGRATION_NAME_PATTERN = /^V(\d{3})__[a-z0-9_]+$/;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

interface MigrationTables {
  svc_schema_migrations: { name: string; applied_at: Generated<Date> };
}

/** Rejects a bad list before anything touches the database. */
function validateList(migrations: readonly Migration[]): void {
  let previous: { name: string; number: number } | undefined;
  for (const migration of migrations) {
    const name = String((migration as { name?: unknown }).name);
    const match = MIGRATION_NAME_PATTERN.exec(name);
    if (!match) {
      throw new MigrationError(name, `migration name '${name}' does not match V000__lower_case_words`);
    }
    if (typeof migration.up !== 'function') {
      throw new MigrationError(name, `migration ${name} has no up function`);
    }
    const number = Number(match[1]);
    if (previous && number <= previous.number) {
      throw new MigrationError(
        name,
        `migration ${name} must come after ${previous.name}: numbers must be strictly increasing`,
      );
    }
    previous = { name, number };
  }
}

/**
 * Applies pending migrations in order, each in its own transaction together with its row in
 * svc_schema_migrations. Every transaction first takes pg_advisory_xact_lock keyed by the database name
 * and then re-reads the applied list, so concurrent starters never apply a migration twice.
 */
export async function runMigrations(
  database: AnyServiceDatabase,
  migrations: readonly Migration[],
): Promise<{ applied: string[] }> {
  validateList(migrations);
  const { logger } = databaseInternals(database);
  const databaseName = database.databaseName;
  const db = database.db as Kysely<MigrationTables>;
  const lockKey = advisoryLockKey(`${MIGRATIONS_TABLE}:${databaseName}`);
  const known = new Set(migrations.map((m) => m.name));

  const lock = async (trx: Transaction<MigrationTables>) => {
    await sql`SELECT pg_advisory_xact_lock(${lockKey}::bigint)`.execute(trx);
  };

  await db
    .transaction()
    .execute(async (trx) => {
      await lock(trx);
      await sql.raw(CREATE_TABLE).execute(trx);
    })
    .catch((err: unknown) => {
      throw new DatabaseError(`cannot create ${MIGRATIONS_TABLE} in ${databaseName}: ${describeError(err)}`, {
        cause: err,
      });
    });

  /** The first pending migration, after checking the database against the list. */
  const nextPending = async (trx: Transaction<MigrationTables>): Promise<Migration | undefined> => {
    const rows = await trx.selectFrom('svc_schema_migrations').select('name').orderBy('name').execute();
    const done = new Set(rows.map((r) => r.name));
    for (const name of done) {
      if (!known.has(name)) {
        throw new MigrationError(
          name,
          `database ${databaseName} has migration ${name} that this version does not know`,
        );
      }
    }
    const index = migrations.findIndex((m) => !done.has(m.name));
    if (index < 0) return undefined;
    const pending = migrations[index];
    const later = migrations.slice(index + 1).find((m) => done.has(m.name));
    if (pending && later) {
      throw new MigrationError(
        pending.name,
        `database ${databaseName} has migration ${later.name} but not the earlier ${pending.name}`,
      );
    }
    return pending;
  };

  const applied: string[] = [];
  for (;;) {
    let attempting: string | undefined;
    let name: string | undefined;
    const started = Date.now();
    try {
      name = await db.transaction().execute(async (trx) => {
        await lock(trx);
        const pending = await nextPending(trx);
        if (!pending) return undefined;
        attempting = pending.name;
        await pending.up(trx);
        await trx.insertInto('svc_schema_migrations').values({ name: pending.name }).execute();
        return pending.name;
      });
    } catch (err) {
      if (err instanceof MigrationError) throw err;
      if (attempting === undefined) {
        throw new DatabaseError(`cannot read the migrations of ${databaseName}: ${describeError(err)}`, {
          cause: err,
        });
      }
      throw new MigrationError(
        attempting,
        `migration ${attempting} failed on ${databaseName}: ${describeError(err)}`,
        {
          cause: err,
        },
      );
    }
    if (name === undefined) break;
    applied.push(name);
    logger.info({ db: databaseName, migration: name, ms: Date.now() - started }, 'migration applied');
  }
  return { applied };
}
