import { sql, type Transaction } from 'kysely';
import { runMigrations, type AnyServiceDatabase, type Migration } from '../platform/db/index.js';
import { quoteIdentifier } from '../platform/db/pglite-dialect.js';
import type { SourceDatabase } from './database-locations.js';
import type { Logger } from '../platform/logger.js';
import {
  appliedMigrations,
  fixTextFormats,
  listForeignKeys,
  listSequences,
  listTables,
  schemaIsEmpty,
  type TableInfo,
} from './catalog.js';
import {
  compareFingerprints,
  describeDifferences,
  fingerprintDatabase,
  type DatabaseFingerprint,
} from './fingerprint.js';

/** A copy that cannot start or did not come out equal; nothing of the source was changed. */
export class CopyError extends Error {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- both sides are any service database
type AnyTransaction = Transaction<any>;

/** Rows read and written per round trip. */
const BATCH_ROWS = 500;

export interface CopyResult {
  /** Rows per table, as copied. */
  tables: Record<string, number>;
  /** The source's content; equal to the target's after the copy (checked). */
  fingerprint: DatabaseFingerprint;
  /** Migrations the source had applied (the target was built up to the same one). */
  schemaVersion: string[];
}

/**
 * Checks that a database can be copied: the source's applied migrations are a prefix of what this program
 * knows, and the target holds no table. Returns the source's applied list.
 */
export async function checkCopyable(
  source: SourceDatabase,
  target: AnyServiceDatabase,
  migrations: readonly Migration[],
): Promise<string[]> {
  const applied = await appliedMigrations(source.db);
  const known = migrations.map((migration) => migration.name);
  if (applied.length === 0) throw new CopyError(`the source ${source.databaseName} has no migrated schema`);
  applied.forEach((name, index) => {
    if (known[index] !== name) {
      throw new CopyError(
        `the source ${source.databaseName} has migration ${name} where this program expects ` +
          `${known[index] ?? 'nothing'}: run the same program version as the source`,
      );
    }
  });
  if (!(await schemaIsEmpty(target.db))) {
    throw new CopyError(
      `the target database ${target.databaseName} is not empty: the migration copies only into new, empty ` +
        'databases (drop it, or choose another name suffix)',
    );
  }
  return applied;
}

function sameColumns(a: TableInfo, b: TableInfo): boolean {
  return (
    a.columns.length === b.columns.length &&
    a.columns.every((column, i) => column.name === b.columns[i]!.name && column.type === b.columns[i]!.type)
  );
}

/** Copies one table's rows from a source snapshot into the target transaction; returns the row count. */
async function copyTable(src: AnyTransaction, dst: AnyTransaction, table: TableInfo): Promise<number> {
  const aliases = table.columns.map((_, i) => `c${i}`);
  const select = table.columns
    .map((column, i) => `${quoteIdentifier(column.name)}::text AS ${aliases[i]!}`)
    .join(', ');
  const targetColumns = table.columns.map((column) => quoteIdentifier(column.name)).join(', ');
  const casts = table.columns.map((column, i) => `x.${aliases[i]!}::${column.type}`).join(', ');
  const recordType = aliases.map((alias) => `${alias} text`).join(', ');
  const overriding = table.columns.some((column) => column.identityAlways) ? ' OVERRIDING SYSTEM VALUE' : '';
  const insert = sql.raw(
    `INSERT INTO ${quoteIdentifier(table.name)} (${targetColumns})${overriding} ` +
      `SELECT ${casts} FROM json_to_recordset(`,
  );
  const recordset = sql.raw(`::json) AS x(${recordType})`);

  await sql
    .raw(`DECLARE svc_form_copy NO SCROLL CURSOR FOR SELECT ${select} FROM ${quoteIdentifier(table.name)}`)
    .execute(src);
  let copied = 0;
  try {
    for (;;) {
      const { rows } = await sql
        .raw<Record<string, string | null>>(`FETCH FORWARD ${BATCH_ROWS} FROM svc_form_copy`)
        .execute(src);
      if (rows.length === 0) break;
      await sql`${insert}${JSON.stringify(rows)}${recordset}`.execute(dst);
      copied += rows.length;
    }
  } finally {
    await sql.raw('CLOSE svc_form_copy').execute(src);
  }
  return copied;
}

/**
 * Copies every table of `source` into the empty `target` (docs/deployment.md, "Moving databases"):
 *
 * 1. the target is migrated up to the source's own migration (same tables, columns, indexes, constraints);
 * 2. in one target transaction: foreign keys dropped, triggers paused (rollup tables are copied as they
 *    are), tables emptied of the migrations' seed rows, every row
 *    copied through its text form (exact for every type), sequences set to the source's state, foreign keys
 *    created again (which checks every reference);
 * 3. the source (read in one read-only snapshot) and the target are fingerprinted table by table and must be
 *    equal.
 *
 * The source is only read. The target's remaining migrations (if the source was older) are left to the
 * caller.
 */
export async function copyDatabase(
  source: SourceDatabase,
  target: AnyServiceDatabase,
  migrations: readonly Migration[],
  logger: Logger,
): Promise<CopyResult> {
  const applied = await checkCopyable(source, target, migrations);
  await runMigrations(target, migrations.slice(0, applied.length));

  const tables: Record<string, number> = {};
  await source.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (src) => {
      await fixTextFormats(src);
      const sourceTables = await listTables(src);
      await target.db.transaction().execute(async (dst) => {
        await fixTextFormats(dst);
        const targetTables = new Map((await listTables(dst)).map((table) => [table.name, table]));
        for (const table of sourceTables) {
          const other = targetTables.get(table.name);
          if (!other || !sameColumns(table, other)) {
            throw new CopyError(
              `table ${source.databaseName}.${table.name} does not have the same columns on the target`,
            );
          }
        }
        const foreignKeys = await listForeignKeys(dst);
        for (const key of foreignKeys) {
          await sql
            .raw(`ALTER TABLE ${quoteIdentifier(key.table)} DROP CONSTRAINT ${quoteIdentifier(key.name)}`)
            .execute(dst);
        }
        // Rollups kept by triggers are copied as tables of their own: the triggers must not add to them again.
        for (const name of targetTables.keys()) {
          await sql.raw(`ALTER TABLE ${quoteIdentifier(name)} DISABLE TRIGGER USER`).execute(dst);
        }
        if (targetTables.size > 0) {
          await sql.raw(`TRUNCATE ${[...targetTables.keys()].map(quoteIdentifier).join(', ')}`).execute(dst);
        }
        for (const table of sourceTables) {
          tables[table.name] = await copyTable(src, dst, table);
          logger.info(
            { db: target.databaseName, table: table.name, rows: tables[table.name] },
            'table copied',
          );
        }
        for (const name of await listSequences(src)) {
          const { rows } = await sql<{ last_value: string; is_called: boolean }>`
            SELECT last_value::text AS last_value, is_called FROM ${sql.table(name)}`.execute(src);
          await sql`SELECT setval(${quoteIdentifier(name)}::regclass, ${rows[0]!.last_value}::bigint, ${rows[0]!.is_called})`.execute(
            dst,
          );
        }
        for (const name of targetTables.keys()) {
          await sql.raw(`ALTER TABLE ${quoteIdentifier(name)} ENABLE TRIGGER USER`).execute(dst);
        }
        for (const key of foreignKeys) {
          await sql
            .raw(
              `ALTER TABLE ${quoteIdentifier(key.table)} ADD CONSTRAINT ${quoteIdentifier(key.name)} ${key.definition}`,
            )
            .execute(dst);
        }
      });
    });

  const [before, after] = [await fingerprintDatabase(source.db), await fingerprintDatabase(target.db)];
  const differences = compareFingerprints(before, after);
  if (differences.length > 0) {
    throw new CopyError(
      `the copy differs from its source: ${describeDifferences(target.databaseName, differences)}`,
    );
  }
  return { tables, fingerprint: before, schemaVersion: applied };
}
