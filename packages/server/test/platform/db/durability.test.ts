import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openServiceDatabase } from '../../../src/platform/db/index.js';
import { quietLogger } from '../../support/databases.js';

// Counts the fsync calls of the embedded database's filesystem (everything else in node:fs is untouched).
const synced = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    synced.count += 1;
    actual.fsyncSync(fd);
  };
  return { ...actual, fsyncSync, default: { ...actual, fsyncSync } };
});

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-db-durability-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('bundled (PGlite) durability', () => {
  it('flushes every commit to the disk with fsync before it returns', async () => {
    const database = await openServiceDatabase({
      name: 'svc_media',
      mode: 'bundled',
      dataDir: root,
      logger: quietLogger(),
    });
    await sql`CREATE TABLE items (v integer)`.execute(database.db);
    const before = synced.count;
    for (let i = 0; i < 5; i++) await sql`INSERT INTO items VALUES (${i})`.execute(database.db);
    // one WAL flush per commit at least
    expect(synced.count - before).toBeGreaterThanOrEqual(5);

    const inTransaction = synced.count;
    await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 5; i++) await sql`INSERT INTO items VALUES (${i})`.execute(trx);
      expect(synced.count).toBe(inTransaction); // nothing to flush before the commit
    });
    expect(synced.count).toBeGreaterThan(inTransaction);
    await database.close();
  });
});
