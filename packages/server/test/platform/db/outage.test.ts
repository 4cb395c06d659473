import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../src/platform/db/errors.js';
import {
  openServiceDatabase,
  withAdvisoryLock,
  type AnyServiceDatabase,
} from '../../../src/platform/db/index.js';
import { quietLogger } from '../../support/databases.js';
import {
  skipWithoutPostgresServer,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../support/private-postgres.js';

/**
 * The pool of an external database while its server stops and starts again (a private cluster, never the
 * machine's shared server): connections cut while a caller holds them must not crash the process, the
 * failures are recognised as "database unavailable", and the pool reconnects by itself.
 */
describe.skipIf(skipWithoutPostgresServer)('an external database whose server stops and starts', () => {
  let cluster: PrivatePostgres | undefined;
  let database: AnyServiceDatabase | undefined;

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    database = await openServiceDatabase({
      name: 'svc_media',
      mode: 'external',
      dataDir: '/nonexistent',
      databaseUrl: cluster.url,
      logger: quietLogger(),
    });
  }, 180_000);

  afterAll(async () => {
    await database?.close();
    await cluster?.remove();
  });

  const selectOne = async () => (await sql<{ one: number }>`SELECT 1 AS one`.execute(database!.db)).rows;

  it('survives connections cut while held, reports them as unavailable, and reconnects', async () => {
    expect(await selectOne()).toEqual([{ one: 1 }]);

    // A transaction and an advisory lock each hold a connection that runs no query when the server
    // stops: the cut reaches those clients as an 'error' event, which must not be an uncaught exception.
    const inTransaction = database!.db.transaction().execute(async (trx) => {
      await sql`SELECT 1`.execute(trx);
      await cluster!.stop();
      await sql`SELECT 1`.execute(trx);
    });
    const transactionFailure = await inTransaction.catch((error: unknown) => error);
    expect(isDatabaseUnavailable(transactionFailure), String(transactionFailure)).toBe(true);

    await cluster!.start();
    const locked = await withAdvisoryLock(database!, 'outage-test', async () => {
      await cluster!.stop();
      return 'done';
    });
    expect(locked).toEqual({ ran: true, value: 'done' });

    // While the server is down every query fails at once, as unavailable.
    const downFailure = await selectOne().catch((error: unknown) => error);
    expect(isDatabaseUnavailable(downFailure), String(downFailure)).toBe(true);

    await cluster!.start();
    // The pool dropped its dead connections: the first query after the restart works.
    expect(await selectOne()).toEqual([{ one: 1 }]);
  });
});
