import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration, ServiceDatabase } from '../../../src/platform/db/index.js';
import { testBackends } from '../../support/databases.js';

interface Tables {
  counters: { id: string; value: number };
  events: { id: number; counter: string; at: number };
}

const migrations: Migration[] = [
  {
    name: 'V001__counters',
    async up(db) {
      await sql`CREATE TABLE counters (id text PRIMARY KEY, value integer NOT NULL);
        CREATE TABLE events (id integer PRIMARY KEY, counter text NOT NULL, at integer NOT NULL)`.execute(db);
    },
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testBackends())('queries and transactions on $label', (backend) => {
  let database: ServiceDatabase<Tables>;

  beforeAll(async () => {
    database = await backend.open<Tables>('svc_media', migrations);
  });
  afterAll(() => backend.cleanup());

  it('reports affected rows for insert, update and delete', async () => {
    const { db } = database;
    const inserted = await db
      .insertInto('counters')
      .values([
        { id: 'a', value: 1 },
        { id: 'b', value: 2 },
        { id: 'c', value: 3 },
      ])
      .executeTakeFirstOrThrow();
    expect(inserted.numInsertedOrUpdatedRows).toBe(3n);
    const updated = await db
      .updateTable('counters')
      .set({ value: 10 })
      .where('id', 'in', ['a', 'b'])
      .executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    const none = await db
      .updateTable('counters')
      .set({ value: 0 })
      .where('id', '=', 'zzz')
      .executeTakeFirst();
    expect(none.numUpdatedRows).toBe(0n);
    const deleted = await db.deleteFrom('counters').where('id', '=', 'c').executeTakeFirst();
    expect(deleted.numDeletedRows).toBe(1n);
    const returned = await db
      .insertInto('counters')
      .values({ id: 'r', value: 5 })
      .returning(['id', 'value'])
      .execute();
    expect(returned).toEqual([{ id: 'r', value: 5 }]);
    await db.deleteFrom('counters').execute();
  });

  it('returns the same JavaScript values on both backends', async () => {
    const { rows } = await sql<Record<string, unknown>>`SELECT
        42::int8 AS i8, 9007199254740993::int8 AS huge, count(*) AS n, 1.50::numeric AS num, 7::int4 AS i4,
        2.5::float8 AS f8, true AS b, '2024-02-29'::date AS d, '2024-01-02 03:04:05+00'::timestamptz AS tstz,
        '1 day 02:00:00'::interval AS iv, '{"a":[1]}'::jsonb AS jb, '\\x0102ff'::bytea AS by,
        ARRAY[1, 2]::int8[] AS a8, ARRAY['2024-01-01']::date[] AS ad, ARRAY['x', NULL]::text[] AS at,
        ${'param'}::text AS p, NULL::int8 AS nothing
      FROM (VALUES (1), (2)) AS v(x)`.execute(database.db);
    expect(rows[0]).toEqual({
      i8: 42,
      huge: 9007199254740993n,
      n: 2,
      num: '1.50',
      i4: 7,
      f8: 2.5,
      b: true,
      d: '2024-02-29',
      tstz: new Date('2024-01-02T03:04:05Z'),
      iv: '1 day 02:00:00',
      jb: { a: [1] },
      by: Buffer.from([1, 2, 255]),
      a8: [1, 2],
      ad: ['2024-01-01'],
      at: ['x', null],
      p: 'param',
      nothing: null,
    });
    expect(Buffer.isBuffer(rows[0]?.by)).toBe(true);
    const bytes = Buffer.from([0, 1, 2, 254]);
    const { rows: echoed } = await sql<{ v: Buffer }>`SELECT ${bytes}::bytea AS v`.execute(database.db);
    expect(echoed[0]?.v).toEqual(bytes);
  });

  it('rolls a transaction back when its callback throws', async () => {
    const { db } = database;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('counters').values({ id: 'lost', value: 1 }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.selectFrom('counters').selectAll().where('id', '=', 'lost').execute()).toEqual([]);

    // a failed statement inside: the whole transaction is gone, the handle stays usable
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('counters').values({ id: 'dup', value: 1 }).execute();
        await trx.insertInto('counters').values({ id: 'dup', value: 2 }).execute();
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.selectFrom('counters').selectAll().where('id', '=', 'dup').execute()).toEqual([]);

    await db.transaction().execute(async (trx) => {
      await trx.insertInto('counters').values({ id: 'kept', value: 1 }).execute();
    });
    expect(await db.selectFrom('counters').select('value').where('id', '=', 'kept').execute()).toEqual([
      { value: 1 },
    ]);
  });

  it('supports savepoints in controlled transactions', async () => {
    const { db } = database;
    const trx = await db.startTransaction().execute();
    await trx.insertInto('counters').values({ id: 'sp1', value: 1 }).execute();
    const inner = await trx.savepoint('before_second').execute();
    await inner.insertInto('counters').values({ id: 'sp2', value: 2 }).execute();
    await inner.rollbackToSavepoint('before_second').execute();
    await trx.commit().execute();
    const rows = await db.selectFrom('counters').select('id').where('id', 'like', 'sp%').execute();
    expect(rows).toEqual([{ id: 'sp1' }]);
  });

  it('runs concurrent transactions without interleaving their statements', async () => {
    const { db } = database;
    await db.insertInto('counters').values({ id: 'shared', value: 0 }).execute();
    const workers = 8;
    const rounds = 5;
    const results = await Promise.all(
      Array.from({ length: workers }, (_, worker) =>
        db.transaction().execute(async (trx) => {
          for (let round = 0; round < rounds; round++) {
            const row = await trx
              .selectFrom('counters')
              .select('value')
              .where('id', '=', 'shared')
              .forUpdate()
              .executeTakeFirstOrThrow();
            await sleep(1);
            await trx
              .updateTable('counters')
              .set({ value: row.value + 1 })
              .where('id', '=', 'shared')
              .execute();
            await trx
              .insertInto('events')
              .values({ id: worker * 100 + round, counter: 'shared', at: row.value })
              .execute();
          }
          if (worker % 3 === 2) throw new Error(`worker ${worker} gives up`);
          return worker;
        }),
      ).map((p) => p.catch((e: unknown) => (e as Error).message)),
    );
    const committed = results.filter((r) => typeof r === 'number');
    expect(results.filter((r) => typeof r === 'string')).toEqual(['worker 2 gives up', 'worker 5 gives up']);
    const final = await db
      .selectFrom('counters')
      .select('value')
      .where('id', '=', 'shared')
      .executeTakeFirstOrThrow();
    expect(final.value).toBe(committed.length * rounds);
    const events = await db.selectFrom('events').select(['id', 'at']).orderBy('at').execute();
    // each committed transaction saw the values the previous ones left: 0..n-1, no duplicates
    expect(events.map((e) => e.at)).toEqual(Array.from({ length: committed.length * rounds }, (_, i) => i));
  });
});
