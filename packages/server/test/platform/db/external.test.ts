import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DatabaseError,
  dropExternalDatabase,
  openServiceDatabase,
  runMigrations,
  type Migration,
} from '../../../src/platform/db/index.js';
import { postgresTestUrl, quietLogger, testBackends } from '../../support/databases.js';

const serverUrl = postgresTestUrl();

function open(databaseUrl: string, nameSuffix = '') {
  return openServiceDatabase({
    name: 'svc_user',
    mode: 'external',
    dataDir: '/nonexistent',
    databaseUrl,
    nameSuffix,
    logger: quietLogger(),
  });
}

describe('external PostgreSQL errors', () => {
  it('reports an unreachable server in one line, quickly, without the password', async () => {
    const started = Date.now();
    const failure = await open('postgres://postgres:hunter2@127.0.0.1:1/', '_x').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(failure).toBeInstanceOf(DatabaseError);
    const message = (failure as Error).message;
    expect(message).toMatch(
      /^cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(svc_user_x\): connect ECONNREFUSED/,
    );
    expect(message).not.toContain('\n');
    expect(message).not.toContain('hunter2');
  });

  it('rejects a URL that is not a PostgreSQL URL without echoing it', async () => {
    await expect(open('mysql://root:hunter2@db/')).rejects.toThrow(
      /^the PostgreSQL URL \(SVC_DATABASE_URL\) must start with postgres:\/\//,
    );
    const failure = await open('postgres://root:hunter2@[bad').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).not.toContain('hunter2');
    await expect(open('postgres://127.0.0.1/', 'Bad-Suffix')).rejects.toThrow(/suffix 'Bad-Suffix'/);
  });

  it.runIf(serverUrl)('reports a refused login in one line, without the password', async () => {
    const url = new URL(serverUrl ?? '');
    url.username = 'no_such_role';
    url.password = 'sekrit-pw';
    const failure = await open(url.href).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    const message = (failure as Error).message;
    expect(message).toMatch(/^cannot connect to PostgreSQL at [^ ]+ \(svc_user\): .*no_such_role/);
    expect(message).not.toContain('sekrit-pw');
    expect(message).not.toContain('\n');
  });
});

describe.runIf(serverUrl)('external PostgreSQL database creation', () => {
  const suffix = `_t${randomBytes(4).toString('hex')}`;
  const databaseUrl = serverUrl ?? '';
  afterAll(() => dropExternalDatabase(databaseUrl, `svc_user${suffix}`));

  async function exists(name: string): Promise<boolean> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      return rows.length === 1;
    } finally {
      await client.end();
    }
  }

  it('creates the database when missing, also when several starters race', async () => {
    const name = `svc_user${suffix}`;
    expect(await exists(name)).toBe(false);
    const handles = await Promise.all([
      open(databaseUrl, suffix),
      open(databaseUrl, suffix),
      open(databaseUrl, suffix),
    ]);
    try {
      expect(await exists(name)).toBe(true);
      for (const handle of handles) {
        expect(handle.backend).toBe('postgres');
        expect(handle.databaseName).toBe(name);
        const { rows } = await sql<{ db: string }>`SELECT current_database() AS db`.execute(handle.db);
        expect(rows[0]?.db).toBe(name);
      }
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
    await dropExternalDatabase(databaseUrl, name);
    expect(await exists(name)).toBe(false);
  });
});

describe.each(testBackends())('concurrent runMigrations on $label', (backend) => {
  afterAll(() => backend.cleanup());

  const slowCountingMigrations: Migration[] = [
    {
      name: 'V001__ledger',
      async up(db) {
        await sql`CREATE TABLE ledger (migration text NOT NULL)`.execute(db);
        await sql`INSERT INTO ledger VALUES ('V001')`.execute(db);
      },
    },
    ...[2, 3, 4, 5].map((n): Migration => ({
      name: `V00${n}__step_${n}`,
      async up(db) {
        await sql`SELECT pg_sleep(0.05)`.execute(db);
        await sql`INSERT INTO ledger VALUES (${`V00${n}`})`.execute(db);
      },
    })),
  ];

  it('applies every migration exactly once', async () => {
    // PostgreSQL: four instances with their own pools; PGlite: one handle, four concurrent callers
    const handles =
      backend.label === 'postgres'
        ? await Promise.all([1, 2, 3, 4].map(() => backend.open('svc_config')))
        : [await backend.open('svc_config')];
    const runs = await Promise.all(
      [0, 1, 2, 3].map((i) => runMigrations(handles[i % handles.length]!, slowCountingMigrations)),
    );
    const appliedNames = runs.flatMap((r) => r.applied).sort();
    expect(appliedNames).toEqual(slowCountingMigrations.map((m) => m.name));
    const db = handles[0]!.db as Kysely<{ ledger: { migration: string } }>;
    const ledger = await db.selectFrom('ledger').select('migration').orderBy('migration').execute();
    expect(ledger.map((r) => r.migration)).toEqual(['V001', 'V002', 'V003', 'V004', 'V005']);
  });
});
