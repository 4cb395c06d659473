// The settings every report query runs with come from the report reader, not from the database's defaults
// (docs/report.md "SQL"): an install on a stock PostgreSQL (work_mem 4 MB, JIT on, two parallel workers per
// query) must run the report as the bench measured it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceDatabase } from '../../../../src/platform/db/index.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { ReportReader } from '../../../../src/services/user/reports/report-reader.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { testBackends } from '../../../support/databases.js';

const SETTINGS = [
  'work_mem',
  'jit',
  'max_parallel_workers_per_gather',
  'statement_timeout',
  'transaction_isolation',
  'transaction_read_only',
] as const;

describe.each(testBackends())('report reader on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;

  beforeAll(async () => {
    database = await backend.open<UserDatabase>('svc_user', userMigrations);
  });

  afterAll(async () => {
    await backend.cleanup();
  });

  const settingsIn = async (reader: ReportReader, fanOut: boolean) => {
    const read = async (db: typeof database.db) => {
      const rows = await sql<{ name: string; setting: string }>`
        SELECT name, current_setting(name) AS setting FROM unnest(${[...SETTINGS]}::text[]) AS name
      `.execute(db);
      return Object.fromEntries(rows.rows.map((row) => [row.name, row.setting]));
    };
    return fanOut ? reader.readAll([read, read]) : [await reader.read(read)];
  };

  it('runs every report transaction with its own memory, JIT, parallelism and time settings', async () => {
    const reader = new ReportReader(database.db, database.backend);
    const expected = {
      work_mem: backend.label === 'postgres' ? '64MB' : '32MB',
      jit: 'off',
      max_parallel_workers_per_gather: '0',
      statement_timeout: '1min',
      transaction_isolation: 'repeatable read',
      transaction_read_only: 'on',
    };
    // One transaction, and each of the transactions a fan-out runs (on PostgreSQL: other connections).
    for (const settings of [...(await settingsIn(reader, false)), ...(await settingsIn(reader, true))]) {
      expect(settings).toEqual(expected);
    }
    // Outside a report the database's own defaults are untouched (SET LOCAL ends with the transaction).
    const outside = await sql<{ setting: string }>`
      SELECT current_setting('statement_timeout') AS setting
    `.execute(database.db);
    expect(outside.rows[0]?.setting).toBe('0');
  });
});
