import { createHash } from 'node:crypto';
import { databaseInternals, type AnyServiceDatabase } from './database.js';
import { describeError } from './errors.js';

/** A stable bigint for a lock name: the first 8 bytes of its SHA-256 as a signed int64 (decimal text). */
export function advisoryLockKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest().readBigInt64BE(0).toString();
}

/**
 * Runs fn only if the named lock is free right now; never waits.
 *
 * PostgreSQL: a session-level pg_try_advisory_lock on one dedicated pool connection, held while fn runs
 * (fn itself uses the pool's other connections), so handles in other processes or instances are excluded.
 * PGlite: one session serves the whole process and its advisory locks are re-entrant within that session,
 * and the data-folder lock already keeps other processes out, so an in-process set of held names does it.
 */
export async function withAdvisoryLock<T>(
  database: AnyServiceDatabase,
  key: string,
  fn: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  const inner = databaseInternals(database);
  if (inner.backend === 'pglite') {
    if (inner.heldLocks.has(key)) return { ran: false };
    inner.heldLocks.add(key);
    try {
      return { ran: true, value: await fn() };
    } finally {
      inner.heldLocks.delete(key);
    }
  }

  const lockKey = advisoryLockKey(key);
  const client = await inner.pool.connect();
  let locked: boolean;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1::bigint) AS locked',
      [lockKey],
    );
    locked = rows[0]?.locked === true;
  } catch (err) {
    client.release(asError(err));
    throw err;
  }
  if (!locked) {
    client.release();
    return { ran: false };
  }
  try {
    return { ran: true, value: await fn() };
  } finally {
    let broken: Error | undefined;
    try {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]);
    } catch (err) {
      // The session may still hold the lock: this connection must not go back to the pool.
      broken = asError(err);
      inner.logger.warn(
        { db: database.databaseName, lock: key, err: describeError(err) },
        'advisory lock release failed; dropping its connection',
      );
    }
    client.release(broken);
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(describeError(err));
}
