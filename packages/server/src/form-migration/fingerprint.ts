import { sql, type Kysely } from 'kysely';
import { quoteIdentifier } from '../platform/db/pglite-dialect.js';
import { fixTextFormats, listSequences, listTables } from './catalog.js';

/** What one table holds: its row count and a digest of every row's text form (order-independent). */
export interface TableFingerprint {
  rows: number;
  digest: string;
}

/** A database's content, table by table, plus the state of its sequences. */
export interface DatabaseFingerprint {
  tables: Record<string, TableFingerprint>;
  sequences: Record<string, string>;
}

/**
 * Reads a fingerprint inside one read-only snapshot. A row's text is the text of its columns in name order
 * (so physical column order does not matter), under the fixed text formats of `fixTextFormats`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service database
export async function fingerprintDatabase(db: Kysely<any>): Promise<DatabaseFingerprint> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      await fixTextFormats(trx);
      const tables: Record<string, TableFingerprint> = {};
      for (const table of await listTables(trx)) {
        const columns = [...table.columns].map((column) => column.name).sort();
        const rowText = sql.raw(
          `ROW(${columns.map((name) => `t.${quoteIdentifier(name)}`).join(', ')})::text`,
        );
        const { rows } = await sql<{ rows: number | string; digest: string }>`
          SELECT count(*) AS rows,
                 md5(coalesce(string_agg(md5(${rowText}), '' ORDER BY md5(${rowText})), '')) AS digest
            FROM ${sql.table(table.name)} AS t`.execute(trx);
        tables[table.name] = { rows: Number(rows[0]!.rows), digest: rows[0]!.digest };
      }
      const sequences: Record<string, string> = {};
      for (const name of await listSequences(trx)) {
        const { rows } = await sql<{ last_value: number | string; is_called: boolean }>`
          SELECT last_value, is_called FROM ${sql.table(name)}`.execute(trx);
        sequences[name] = `${String(rows[0]!.last_value)}/${rows[0]!.is_called ? 'called' : 'not called'}`;
      }
      return { tables, sequences };
    });
}

export interface TableDifference {
  table: string;
  before: TableFingerprint | undefined;
  after: TableFingerprint | undefined;
}

/** Tables (and sequences, as `sequence <name>`) whose content differs; empty when the two are equal. */
export function compareFingerprints(
  before: DatabaseFingerprint,
  after: DatabaseFingerprint,
): TableDifference[] {
  const differences: TableDifference[] = [];
  const names = new Set([...Object.keys(before.tables), ...Object.keys(after.tables)]);
  for (const name of [...names].sort()) {
    const a = before.tables[name];
    const b = after.tables[name];
    if (a?.rows !== b?.rows || a?.digest !== b?.digest)
      differences.push({ table: name, before: a, after: b });
  }
  const sequences = new Set([...Object.keys(before.sequences), ...Object.keys(after.sequences)]);
  for (const name of [...sequences].sort()) {
    const a = before.sequences[name];
    const b = after.sequences[name];
    if (a !== b) {
      differences.push({
        table: `sequence ${name}`,
        before: a === undefined ? undefined : { rows: 0, digest: a },
        after: b === undefined ? undefined : { rows: 0, digest: b },
      });
    }
  }
  return differences;
}

/** One line per difference, for messages. */
export function describeDifferences(database: string, differences: readonly TableDifference[]): string {
  const side = (value: TableFingerprint | undefined) =>
    value === undefined ? 'missing' : value.digest.includes('/') ? value.digest : `${value.rows} rows`;
  return differences
    .map((d) => `${database}.${d.table}: before ${side(d.before)}, after ${side(d.after)}`)
    .join('; ');
}
