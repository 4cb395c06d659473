import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DatabaseError,
  LOCK_FILE_NAME,
  openServiceDatabase,
  runMigrations,
  withAdvisoryLock,
  type Migration,
  type ServiceDatabaseName,
} from '../../../src/platform/db/index.js';
import { quietLogger } from '../../support/databases.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../../..');
const fixture = path.join(here, 'fixtures/hold-database.ts');

let root: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-db-bundled-'));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let counter = 0;
async function freshDataDir(): Promise<string> {
  const dir = path.join(root, `d${++counter}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

function open(dataDir: string, name: ServiceDatabaseName = 'svc_user') {
  return openServiceDatabase({ name, mode: 'bundled', dataDir, logger: quietLogger() });
}

/** The lock file of the instance folder named after a database. */
function lockFile(dataDir: string, folder = 'svc_user'): string {
  return path.join(dataDir, 'db', folder, LOCK_FILE_NAME);
}

function startChild(
  mode: 'hold' | 'try',
  dataDir: string,
  name: ServiceDatabaseName = 'svc_user',
): { child: ChildProcess; firstLine: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode, dataDir, name], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before a line: ${stderr}`)));
  });
  return { child, firstLine };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('bundled (PGlite) data folder lock', () => {
  it('refuses a second open in the same process until the first closes', async () => {
    const dataDir = await freshDataDir();
    const first = await open(dataDir);
    expect(first.backend).toBe('pglite');
    expect(first.databaseName).toBe('svc_user');
    expect((await readFile(lockFile(dataDir), 'utf8')).trim()).toBe(String(process.pid));

    const failure = await open(dataDir).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).toMatch(
      new RegExp(`^database svc_user is in use by process ${process.pid} \\(this process\\)`),
    );
    // the refused open did not disturb the first handle
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(first.db)).rows).toEqual([{ one: 1 }]);

    await first.close();
    expect(existsSync(lockFile(dataDir))).toBe(false);
    const again = await open(dataDir);
    await again.close();
  });

  it('refuses an open from another process while one holds it, and takes over after it is killed', async () => {
    const dataDir = await freshDataDir();

    // we hold it: the other process is refused
    const ours = await open(dataDir);
    const attempt = startChild('try', dataDir);
    const outcome = JSON.parse(await attempt.firstLine) as { ok: boolean; error?: string };
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(
      new RegExp(`^database svc_user is in use by process ${process.pid} \\(lock file `),
    );
    await ours.close();

    // another process holds it: we are refused
    const holder = startChild('hold', dataDir);
    expect(await holder.firstLine).toBe('ready');
    const failure = await open(dataDir).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).toMatch(
      new RegExp(
        `^database svc_user is in use by process ${holder.child.pid} \\(lock file .*${LOCK_FILE_NAME}\\)`,
      ),
    );

    // the holder dies without closing: its lock is stale, its committed row survives the crash
    const exited = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await exited;
    expect((await readFile(lockFile(dataDir), 'utf8')).trim()).toBe(String(holder.child.pid));
    const after = await open(dataDir);
    const { rows } = await sql<{ pid: number }>`SELECT pid FROM held`.execute(after.db);
    expect(rows).toEqual([{ pid: holder.child.pid }]);
    expect((await readFile(lockFile(dataDir), 'utf8')).trim()).toBe(String(process.pid));
    await after.close();
  });

  it('takes over stale lock files: dead pid, our own pid from an earlier run, no pid', async () => {
    const dataDir = await freshDataDir();
    await (await open(dataDir)).close();
    for (const content of [`${await deadPid()}\n`, `${process.pid}\n`, '', 'garbage']) {
      await writeFile(lockFile(dataDir), content);
      const database = await open(dataDir);
      expect((await readFile(lockFile(dataDir), 'utf8')).trim()).toBe(String(process.pid));
      await database.close();
      expect(existsSync(lockFile(dataDir))).toBe(false);
    }
  });

  it('keeps data on disk across close and reopen', async () => {
    const dataDir = await freshDataDir();
    const first = await open(dataDir);
    await sql`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('persisted')`.execute(first.db);
    await first.close();
    expect(existsSync(path.join(dataDir, 'db', 'svc_user', 'PG_VERSION'))).toBe(true);
    const second = await open(dataDir);
    expect((await sql<{ v: string }>`SELECT v FROM kept`.execute(second.db)).rows).toEqual([
      { v: 'persisted' },
    ]);
    await second.close();
  });
});

async function rowsOf<R>(query: { execute(db: never): Promise<{ rows: R[] }> }, db: unknown): Promise<R[]> {
  return (await query.execute(db as never)).rows;
}

function dbFolder(dataDir: string): string[] {
  return readdirSync(path.join(dataDir, 'db')).sort();
}

const NOTES: Migration = {
  name: 'V001__notes',
  async up(db) {
    await sql`CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)`.execute(db);
  },
};

describe('bundled (PGlite) databases of one process in one embedded instance', () => {
  it('keeps each database in its own schema: same table names, separate rows, separate migrations', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');
    // one instance folder, named after the first database; a location file per database
    expect(dbFolder(dataDir)).toEqual(['svc_media.cluster', 'svc_user', 'svc_user.cluster']);
    expect(readFileSync(path.join(dataDir, 'db', 'svc_media.cluster'), 'utf8').trim()).toBe('svc_user');

    expect(await runMigrations(user, [NOTES])).toEqual({ applied: ['V001__notes'] });
    expect(await runMigrations(media, [NOTES])).toEqual({ applied: ['V001__notes'] });
    expect(await runMigrations(user, [NOTES])).toEqual({ applied: [] });
    await sql`INSERT INTO notes (body) VALUES ('for users')`.execute(user.db);
    await sql`INSERT INTO notes (body) VALUES ('for media'), ('more media')`.execute(media.db);
    await sql`CREATE TABLE only_users (id integer)`.execute(user.db);

    expect(await rowsOf(sql<{ body: string }>`SELECT body FROM notes ORDER BY id`, user.db)).toEqual([
      { body: 'for users' },
    ]);
    expect(await rowsOf(sql<{ body: string }>`SELECT body FROM notes ORDER BY id`, media.db)).toEqual([
      { body: 'for media' },
      { body: 'more media' },
    ]);
    expect(
      await rowsOf(sql<{ found: string | null }>`SELECT to_regclass('only_users')::text AS found`, media.db),
    ).toEqual([{ found: null }]);
    await expect(sql`SELECT * FROM only_users`.execute(media.db)).rejects.toThrow(/only_users/);
    expect(await rowsOf(sql<{ s: string }>`SELECT current_schema() AS s`, media.db)).toEqual([
      { s: 'svc_media' },
    ]);
    expect(await rowsOf(sql<{ s: string }>`SELECT current_schema() AS s`, user.db)).toEqual([
      { s: 'svc_user' },
    ]);

    await media.close();
    await user.close();
  });

  it('points every query and transaction at its own database when several run at once', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');
    for (const database of [user, media]) {
      await sql`CREATE TABLE hits (who text NOT NULL, seen text NOT NULL)`.execute(database.db);
    }
    const work = [];
    for (let i = 0; i < 15; i++) {
      for (const [who, database] of [
        ['user', user],
        ['media', media],
      ] as const) {
        work.push(
          database.db.transaction().execute(async (trx) => {
            await sql`INSERT INTO hits VALUES (${who}, current_schema())`.execute(trx);
            await sql`INSERT INTO hits VALUES (${who}, current_schema())`.execute(trx);
          }),
          sql`INSERT INTO hits VALUES (${who}, current_schema())`.execute(database.db),
        );
      }
    }
    await Promise.all(work);
    const summary = sql<{ who: string; seen: string; n: number }>`
      SELECT who, seen, count(*) AS n FROM hits GROUP BY who, seen`;
    expect(await rowsOf(summary, user.db)).toEqual([{ who: 'user', seen: 'svc_user', n: 45 }]);
    expect(await rowsOf(summary, media.db)).toEqual([{ who: 'media', seen: 'svc_media', n: 45 }]);
    await user.close();
    await media.close();
  });

  it('keeps the instance running while any of its databases is open, and stops it with the last', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');
    await sql`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('user row')`.execute(user.db);
    await sql`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('media row')`.execute(media.db);

    await user.close();
    expect(await rowsOf(sql<{ v: string }>`SELECT v FROM kept`, media.db)).toEqual([{ v: 'media row' }]);
    expect((await readFile(lockFile(dataDir), 'utf8')).trim()).toBe(String(process.pid));
    // reopened while the instance still runs: it joins it again
    const userAgain = await open(dataDir, 'svc_user');
    expect(await rowsOf(sql<{ v: string }>`SELECT v FROM kept`, userAgain.db)).toEqual([{ v: 'user row' }]);

    await media.close();
    expect(existsSync(lockFile(dataDir))).toBe(true);
    await userAgain.close();
    expect(existsSync(lockFile(dataDir))).toBe(false);
  });

  it('finds each database where it was first put, whatever the order of later opens', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');
    await sql`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('media row')`.execute(media.db);
    await media.close();
    await user.close();

    // media alone first this time: it goes back into the instance folder named svc_user
    const mediaAgain = await open(dataDir, 'svc_media');
    expect(await rowsOf(sql<{ v: string }>`SELECT v FROM kept`, mediaAgain.db)).toEqual([{ v: 'media row' }]);
    expect(existsSync(lockFile(dataDir))).toBe(true);
    // a database not placed yet joins the instance this process runs
    const config = await open(dataDir, 'svc_config');
    expect(dbFolder(dataDir)).toEqual([
      'svc_config.cluster',
      'svc_media.cluster',
      'svc_user',
      'svc_user.cluster',
    ]);
    await config.close();
    await mediaAgain.close();
  });

  it('places databases opened at the same moment in one instance', async () => {
    const dataDir = await freshDataDir();
    const [user, media, config] = await Promise.all([
      open(dataDir, 'svc_user'),
      open(dataDir, 'svc_media'),
      open(dataDir, 'svc_config'),
    ]);
    expect(dbFolder(dataDir).filter((name) => !name.endsWith('.cluster'))).toHaveLength(1);
    await Promise.all([user.close(), media.close(), config.close()]);
  });

  it('keeps advisory locks apart per database', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');
    const outcome = await withAdvisoryLock(user, 'scan', () =>
      withAdvisoryLock(media, 'scan', () => Promise.resolve('both')),
    );
    expect(outcome).toEqual({ ran: true, value: { ran: true, value: 'both' } });
    await user.close();
    await media.close();
  });

  it('gives another process its own instance, and refuses it the databases of ours', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const media = await open(dataDir, 'svc_media');

    // svc_media lives in our instance: refused, naming that instance's lock file
    const attempt = startChild('try', dataDir, 'svc_media');
    const outcome = JSON.parse(await attempt.firstLine) as { ok: boolean; error?: string };
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(
      new RegExp(
        `^database svc_media is in use by process ${process.pid} \\(lock file .*svc_user/${LOCK_FILE_NAME}\\)`,
      ),
    );

    // svc_config is not placed yet: the other process puts it into an instance of its own
    const holder = startChild('hold', dataDir, 'svc_config');
    expect(await holder.firstLine).toBe('ready');
    expect(readFileSync(path.join(dataDir, 'db', 'svc_config.cluster'), 'utf8').trim()).toBe('svc_config');
    const failure = await open(dataDir, 'svc_config').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).toMatch(
      new RegExp(`^database svc_config is in use by process ${holder.child.pid} \\(lock file `),
    );
    const exited = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await exited;

    // once it is gone, its instance is ours to open (a second one in this process), its row intact
    const config = await open(dataDir, 'svc_config');
    expect(await rowsOf(sql<{ pid: number }>`SELECT pid FROM held`, config.db)).toEqual([
      { pid: holder.child.pid },
    ]);
    await config.close();
    await media.close();
    await user.close();
  });

  it('recovers from a start cut short: an empty location file, a half-filled instance folder', async () => {
    const dataDir = await freshDataDir();
    await mkdir(path.join(dataDir, 'db', 'svc_user', 'base', '1'), { recursive: true });
    await writeFile(path.join(dataDir, 'db', 'svc_user', 'base', '1', 'junk'), 'left over');
    await writeFile(path.join(dataDir, 'db', 'svc_user.cluster'), '');
    const user = await open(dataDir, 'svc_user');
    expect(await rowsOf(sql<{ one: number }>`SELECT 1 AS one`, user.db)).toEqual([{ one: 1 }]);
    expect(readFileSync(path.join(dataDir, 'db', 'svc_user.cluster'), 'utf8')).toBe('svc_user\n');
    expect(existsSync(path.join(dataDir, 'db', 'svc_user', 'base', '1', 'junk'))).toBe(false);
    await user.close();

    await writeFile(path.join(dataDir, 'db', 'svc_media.cluster'), '../elsewhere\n');
    await expect(open(dataDir, 'svc_media')).rejects.toThrow(
      /^database location file .*svc_media\.cluster names '\.\.\/elsewhere', not a folder in /,
    );
  });

  it('runs PostgreSQL with fsync on, small buffers, and leaves no scratch folder from creating it', async () => {
    const dataDir = await freshDataDir();
    const user = await open(dataDir, 'svc_user');
    const settings = await rowsOf(
      sql<{ name: string; setting: string; unit: string | null }>`
        SELECT name, setting, unit FROM pg_settings
        WHERE name IN ('fsync', 'wal_sync_method', 'synchronous_commit', 'full_page_writes', 'shared_buffers')
        ORDER BY name`,
      user.db,
    );
    expect(settings).toEqual([
      { name: 'fsync', setting: 'on', unit: null },
      { name: 'full_page_writes', setting: 'on', unit: null },
      { name: 'shared_buffers', setting: '2048', unit: '8kB' },
      { name: 'synchronous_commit', setting: 'on', unit: null },
      { name: 'wal_sync_method', setting: 'fsync', unit: null },
    ]);
    expect(dbFolder(dataDir)).toEqual(['svc_user', 'svc_user.cluster']);
    expect(existsSync(path.join(dataDir, 'db', 'svc_user', 'PG_VERSION'))).toBe(true);
    await user.close();
  });
});
