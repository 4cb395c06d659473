import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationError, runMigrations, type Migration } from '../../../src/platform/db/index.js';
import { testBackends } from '../../support/databases.js';

interface NoteTables {
  notes: { id: number; body: string };
  svc_schema_migrations: { name: string; applied_at: Date };
}

const V001: Migration = {
  name: 'V001__notes',
  async up(db) {
    await db.schema
      .createTable('notes')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('body', 'text', (c) => c.notNull())
      .execute();
  },
};

const V002: Migration = {
  name: 'V002__tags',
  async up(db) {
    // several statements in one raw script work on both backends
    await sql`CREATE TABLE tags (id integer PRIMARY KEY, label text NOT NULL);
      CREATE INDEX tags_label ON tags (label);`.execute(db);
  },
};

const V002_BROKEN: Migration = {
  name: 'V002__broken',
  async up(db) {
    await sql`CREATE TABLE half_done (id integer)`.execute(db);
    await sql`INSERT INTO half_done VALUES (1)`.execute(db);
    await sql`SELEC nonsense`.execute(db);
  },
};

async function tableExists<DB>(db: Kysely<DB>, table: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${table})::text AS found`.execute(
    db,
  );
  return rows[0]?.found != null;
}

async function recorded<DB>(db: Kysely<DB>): Promise<string[]> {
  const rows = await (db as unknown as Kysely<NoteTables>)
    .selectFrom('svc_schema_migrations')
    .select('name')
    .orderBy('name')
    .execute();
  return rows.map((r) => r.name);
}

describe.each(testBackends())('migrations on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('applies migrations once, and the data survives close and reopen', async () => {
    const first = await backend.open<NoteTables>('svc_user');
    expect(await runMigrations(first, [V001])).toEqual({ applied: ['V001__notes'] });
    const inserted = await first.db
      .insertInto('notes')
      .values([
        { id: 1, body: 'one' },
        { id: 2, body: 'two' },
      ])
      .executeTakeFirstOrThrow();
    expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
    expect(await runMigrations(first, [V001])).toEqual({ applied: [] });
    expect(await runMigrations(first, [V001, V002])).toEqual({ applied: ['V002__tags'] });
    expect(await tableExists(first.db, 'tags')).toBe(true);
    await first.close();
    await first.close(); // idempotent

    const second = await backend.open<NoteTables>('svc_user');
    expect(await runMigrations(second, [V001, V002])).toEqual({ applied: [] });
    const rows = await second.db.selectFrom('notes').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
    ]);
    const applied = await second.db.selectFrom('svc_schema_migrations').selectAll().orderBy('name').execute();
    expect(applied.map((r) => r.name)).toEqual(['V001__notes', 'V002__tags']);
    expect(applied[0]?.applied_at).toBeInstanceOf(Date);
    await second.close();
  });

  it('rolls a failing migration back whole and keeps the earlier ones', async () => {
    const database = await backend.open<NoteTables>('svc_media');
    await runMigrations(database, [V001]);
    await database.db.insertInto('notes').values({ id: 7, body: 'kept' }).execute();

    const failure = await runMigrations(database, [V001, V002_BROKEN]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationError);
    const error = failure as MigrationError;
    expect(error.migration).toBe('V002__broken');
    expect(error.message).toMatch(
      new RegExp(
        `^migration V002__broken failed on ${database.databaseName}: syntax error at or near "SELEC"$`,
      ),
    );
    expect(error.message).not.toContain('\n');

    expect(await tableExists(database.db, 'half_done')).toBe(false);
    expect(await recorded(database.db)).toEqual(['V001__notes']);
    expect(await database.db.selectFrom('notes').selectAll().execute()).toEqual([{ id: 7, body: 'kept' }]);

    // in one run: V002 applied and committed, V003 fails alone
    const V003_BROKEN = { ...V002_BROKEN, name: 'V003__broken' };
    await expect(runMigrations(database, [V001, V002, V003_BROKEN])).rejects.toThrow(
      /^migration V003__broken failed/,
    );
    expect(await recorded(database.db)).toEqual(['V001__notes', 'V002__tags']);
    expect(await tableExists(database.db, 'tags')).toBe(true);
  });

  it('rejects bad names and orders before touching the database', async () => {
    const database = await backend.open('svc_config');
    let ran = false;
    const spy: Migration = {
      name: 'V001__spy',
      up() {
        ran = true;
        return Promise.resolve();
      },
    };
    const bad: [readonly Migration[], RegExp][] = [
      [[spy, { ...V001, name: 'V2__short' }], /V2__short/],
      [[spy, { ...V001, name: 'V002__Upper' }], /V002__Upper/],
      [[spy, { ...V001, name: 'V002-dash' }], /V002-dash/],
      [
        [
          { ...V002, name: 'V002__b' },
          { ...spy, name: 'V001__a' },
        ],
        /V001__a must come after V002__b/,
      ],
      [[spy, { ...V001, name: 'V001__again' }], /V001__again must come after V001__spy/],
    ];
    for (const [list, message] of bad) {
      const failure = await runMigrations(database, list).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toMatch(message);
    }
    expect(ran).toBe(false);
    expect(await tableExists(database.db, 'svc_schema_migrations')).toBe(false);
  });

  it('rejects a database that has migrations this version does not know, or a gap', async () => {
    const database = await backend.open('yiyi_storage');
    const V009: Migration = { name: 'V009__future', up: async () => {} };
    await runMigrations(database, [V001, V009]);
    const failure = await runMigrations(database, [V001, V002]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as MigrationError).message).toBe(
      `database ${database.databaseName} has migration V009__future that this version does not know`,
    );
    expect((failure as MigrationError).migration).toBe('V009__future');
    expect(await tableExists(database.db, 'tags')).toBe(false);

    // V002 added below an applied V009: refused rather than applied out of order
    await expect(runMigrations(database, [V001, V002, V009])).rejects.toThrow(
      `database ${database.databaseName} has migration V009__future but not the earlier V002__tags`,
    );
    expect(await recorded(database.db)).toEqual(['V001__notes', 'V009__future']);
  });
});
