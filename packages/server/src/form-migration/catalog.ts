import { sql, type Kysely, type Transaction } from 'kysely';
import { MIGRATIONS_TABLE } from '../platform/db/index.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- catalog queries see no schema type */
type AnyDb = Kysely<any> | Transaction<any>;

export interface ColumnInfo {
  name: string;
  /** format_type(): e.g. 'timestamp with time zone', 'character varying(20)' */
  type: string;
  /** GENERATED ALWAYS AS IDENTITY: inserts need OVERRIDING SYSTEM VALUE */
  identityAlways: boolean;
}

export interface TableInfo {
  name: string;
  /** Stored columns in their physical order (generated columns are left out: they are computed again). */
  columns: ColumnInfo[];
}

/**
 * Session settings that make the text form of every value the same on both backends and in every session:
 * values are read as text and written back through the type's input function, so the copy is exact.
 */
export async function fixTextFormats(db: AnyDb): Promise<void> {
  await sql`SET LOCAL TIME ZONE 'UTC'`.execute(db);
  await sql`SET LOCAL DateStyle = 'ISO, YMD'`.execute(db);
  await sql`SET LOCAL IntervalStyle = 'postgres'`.execute(db);
  await sql`SET LOCAL extra_float_digits = 1`.execute(db);
  await sql`SET LOCAL bytea_output = 'hex'`.execute(db);
}

/**
 * The ordinary tables of the handle's own schema (`current_schema()`: the database's schema in the bundled
 * store, `public` on a server), sorted by name. Partitions are left out: their parent holds their rows.
 */
export async function listTables(db: AnyDb): Promise<TableInfo[]> {
  const { rows } = await sql<{ table: string; column: string; type: string; identity: string }>`
    SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS "type",
           a.attidentity AS "identity"
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND a.attgenerated = ''
     ORDER BY c.relname, a.attnum`.execute(db);
  const tables = new Map<string, TableInfo>();
  for (const row of rows) {
    let table = tables.get(row.table);
    if (!table) {
      table = { name: row.table, columns: [] };
      tables.set(row.table, table);
    }
    table.columns.push({ name: row.column, type: row.type, identityAlways: row.identity === 'a' });
  }
  return [...tables.values()];
}

/** The sequences of the handle's own schema, sorted by name. */
export async function listSequences(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'S' ORDER BY c.relname`.execute(db);
  return rows.map((row) => row.name);
}

export interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

/** Foreign keys of the schema, with their definitions to create them again. */
export async function listForeignKeys(db: AnyDb): Promise<ForeignKey[]> {
  const { rows } = await sql<ForeignKey>`
    SELECT cl.relname AS "table", co.conname AS "name", pg_get_constraintdef(co.oid) AS "definition"
      FROM pg_constraint co
      JOIN pg_class cl ON cl.oid = co.conrelid
      JOIN pg_namespace n ON n.oid = co.connamespace
     WHERE n.nspname = current_schema() AND co.contype = 'f'
     ORDER BY cl.relname, co.conname`.execute(db);
  return rows;
}

/** True when the schema holds no table at all (a new database, or one never migrated). */
export async function schemaIsEmpty(db: AnyDb): Promise<boolean> {
  return (await listTables(db)).length === 0;
}

/** Names of the applied migrations (empty when the migrations table does not exist). */
export async function appliedMigrations(db: AnyDb): Promise<string[]> {
  const tables = await listTables(db);
  if (!tables.some((table) => table.name === MIGRATIONS_TABLE)) return [];
  const { rows } = await sql<{
    name: string;
  }>`SELECT name FROM ${sql.table(MIGRATIONS_TABLE)} ORDER BY name`.execute(db);
  return rows.map((row) => row.name);
}
