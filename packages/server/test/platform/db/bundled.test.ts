import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError, LOCK_FILE_NAME, openServiceDatabase } from '../../../src/platform/db/index.js';
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

function open(dataDir: string) {
  return openServiceDatabase({ name: 'svc_user', mode: 'bundled', dataDir, logger: quietLogger() });
}

function lockFile(dataDir: string): string {
  return path.join(dataDir, 'db', 'svc_user', LOCK_FILE_NAME);
}

function startChild(mode: 'hold' | 'try', dataDir: string): { child: ChildProcess; firstLine: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode, dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
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
    expect(outcome.error).toMatch(new RegExp(`^database svc_user is in use by process ${process.pid} \\(lock file `));
    await ours.close();

    // another process holds it: we are refused
    const holder = startChild('hold', dataDir);
    expect(await holder.firstLine).toBe('ready');
    const failure = await open(dataDir).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).toMatch(
      new RegExp(`^database svc_user is in use by process ${holder.child.pid} \\(lock file .*${LOCK_FILE_NAME}\\)`),
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
    for (const content of [`${await deadPid()}\n`, `${process.pid}\n`, '', 'garbage']) {
      const dataDir = await freshDataDir();
      await mkdir(path.dirname(lockFile(dataDir)), { recursive: true });
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
    expect((await sql<{ v: string }>`SELECT v FROM kept`.execute(second.db)).rows).toEqual([{ v: 'persisted' }]);
    await second.close();
  });
});
