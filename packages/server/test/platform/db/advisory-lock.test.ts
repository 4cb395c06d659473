import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { advisoryLockKey, withAdvisoryLock } from '../../../src/platform/db/index.js';
import { testBackends } from '../../support/databases.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('advisoryLockKey', () => {
  it('is a stable signed 64-bit integer per name', () => {
    const key = advisoryLockKey('tasks.scan');
    expect(key).toBe(advisoryLockKey('tasks.scan'));
    expect(key).not.toBe(advisoryLockKey('tasks.scan2'));
    const value = BigInt(key);
    expect(value >= -(2n ** 63n) && value < 2n ** 63n).toBe(true);
    // first 8 bytes of sha256('') = e3b0c44298fc1c14, as signed int64
    expect(advisoryLockKey('')).toBe(BigInt.asIntN(64, 0xe3b0c44298fc1c14n).toString());
  });
});

describe.each(testBackends())('withAdvisoryLock on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('lets one holder run at a time and frees the lock afterwards', async () => {
    const database = await backend.open('svc_config');
    const inside = deferred();
    const leave = deferred();
    const first = withAdvisoryLock(database, 'job', async () => {
      inside.resolve();
      // the holder can still use the database while holding the lock
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
      await leave.promise;
      return rows[0]?.one;
    });
    await inside.promise;
    expect(await withAdvisoryLock(database, 'job', () => Promise.resolve('second'))).toEqual({ ran: false });
    expect(await withAdvisoryLock(database, 'other job', () => Promise.resolve('other'))).toEqual({
      ran: true,
      value: 'other',
    });
    leave.resolve();
    expect(await first).toEqual({ ran: true, value: 1 });
    expect(await withAdvisoryLock(database, 'job', () => Promise.resolve('again'))).toEqual({
      ran: true,
      value: 'again',
    });
  });

  it('releases the lock when fn throws', async () => {
    const database = await backend.open('svc_user');
    await expect(
      withAdvisoryLock(database, 'fragile', () => Promise.reject(new Error('task failed'))),
    ).rejects.toThrow('task failed');
    expect(await withAdvisoryLock(database, 'fragile', () => Promise.resolve(2))).toEqual({
      ran: true,
      value: 2,
    });
  });

  // PGlite admits one open handle per data folder, so there is no second instance to exclude.
  if (backend.label === 'postgres') {
    it('excludes a second instance with its own pool', async () => {
      const one = await backend.open('svc_media');
      const two = await backend.open('svc_media');
      const inside = deferred();
      const leave = deferred();
      const held = withAdvisoryLock(one, 'scan', async () => {
        inside.resolve();
        await leave.promise;
        return 'one';
      });
      await inside.promise;
      expect(await withAdvisoryLock(two, 'scan', () => Promise.resolve('two'))).toEqual({ ran: false });
      leave.resolve();
      expect(await held).toEqual({ ran: true, value: 'one' });
      expect(await withAdvisoryLock(two, 'scan', () => Promise.resolve('two'))).toEqual({
        ran: true,
        value: 'two',
      });

      // a throwing holder in one instance does not leave the lock behind for the other
      await expect(withAdvisoryLock(two, 'scan', () => Promise.reject(new Error('nope')))).rejects.toThrow(
        'nope',
      );
      expect(await withAdvisoryLock(one, 'scan', () => Promise.resolve(1))).toEqual({ ran: true, value: 1 });
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM pg_locks
      WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(
        one.db,
      );
      expect(rows[0]?.n).toBe(0);
    });
  }
});
