import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  unavailableCause,
} from '../../../src/platform/db/errors.js';
import { PGliteDialect } from '../../../src/platform/db/pglite-dialect.js';
import { createServer } from '../../../src/platform/http/create-server.js';
import { quietLogger } from '../../support/databases.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('unavailableCause', () => {
  it.each([
    ['admin shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', withCode('57P02')],
    ['cannot connect now', withCode('57P03', 'the database system is shutting down')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['connection failure', withCode('08006')],
    ['cannot establish', withCode('08001')],
    ['terminated', new Error('Connection terminated unexpectedly')],
    ['connect timeout', new Error('Connection terminated due to connection timeout')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
    ['wrapped', new Error('cannot list', { cause: withCode('57P01') })],
    ['embedded database busy', new DatabaseUnavailableError('stayed busy')],
    [
      'a refused connect, as the pool reports it',
      new DatabaseUnavailableError('x', { cause: withCode('ECONNREFUSED') }),
    ],
  ])('recognises %s as the database being unavailable', (_name, error) => {
    expect(unavailableCause(error)).toBe('database');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['reset', withCode('ECONNRESET')],
    ['dual-stack refusal', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
  ])('recognises a bare socket failure (%s) as a connection fault', (_name, error) => {
    expect(unavailableCause(error)).toBe('connection');
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it.each([
    ['unique violation', withCode('23505', 'duplicate key')],
    ['missing table', withCode('42P01', 'relation "x" does not exist')],
    ['plain error', new Error('something else')],
    ['no error', undefined],
    ['a string', 'Connection terminated'],
  ])('leaves %s alone', (_name, error) => {
    expect(unavailableCause(error)).toBeUndefined();
  });
});

describe('the error handler', () => {
  const app = createServer({
    allowUndeclaredRoutes: true,
    component: 'media',
    logger: quietLogger(),
    serviceToken: 'token',
  });
  const health = { config: { auth: { direct: 'health' as const } } };
  app.get('/outage', health, () => {
    throw withCode('57P01', 'terminating connection due to administrator command');
  });
  app.get('/refused', health, () => {
    throw withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
  });
  app.get('/broken', health, () => {
    throw new Error('a bug');
  });
  afterAll(() => app.close());

  it('answers a database outage 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const answer = await app.inject({ method: 'GET', url: '/outage' });
    expect(answer.statusCode).toBe(503);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.json()).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the database is not available; try again shortly' },
    });
  });

  it('answers a refused connection 503 SERVICE_UNAVAILABLE without naming the database', async () => {
    const answer = await app.inject({ method: 'GET', url: '/refused' });
    expect(answer.statusCode).toBe(503);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.json()).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'a service this request needs is not reachable; try again shortly',
      },
    });
  });

  it('still answers any other failure 500 INTERNAL_ERROR, without Retry-After', async () => {
    const answer = await app.inject({ method: 'GET', url: '/broken' });
    expect(answer.statusCode).toBe(500);
    expect(answer.headers['retry-after']).toBeUndefined();
    expect(answer.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'internal error' } });
  });
});

describe('the embedded database while its session is held', () => {
  const db = new Kysely<unknown>({
    dialect: new PGliteDialect({
      pglite: new PGlite(),
      logger: quietLogger(),
      label: 'test',
      acquireTimeoutMs: 300,
    }),
  });
  afterAll(() => db.destroy());

  it('fails a waiting query as unavailable instead of letting it hang, and serves again afterwards', async () => {
    let finishHolder!: () => void;
    const holding = new Promise<void>((resolve) => (finishHolder = resolve));
    let holderStarted!: () => void;
    const started = new Promise<void>((resolve) => (holderStarted = resolve));
    const holder = db.transaction().execute(async (trx) => {
      await sql`SELECT 1`.execute(trx);
      holderStarted();
      await holding;
    });
    await started;

    const waiting = sql`SELECT 1`.execute(db).then(
      () => 'answered',
      (error: unknown) => error,
    );
    const outcome = await Promise.race([
      waiting,
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
    ]);
    finishHolder();
    await holder;
    expect(outcome).toBeInstanceOf(DatabaseUnavailableError);
    expect(isDatabaseUnavailable(outcome)).toBe(true);
    // The query that gave up holds nothing: the next ones get the session.
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
    expect((await sql<{ two: number }>`SELECT 2 AS two`.execute(db)).rows).toEqual([{ two: 2 }]);
  });
});
