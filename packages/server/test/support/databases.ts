import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../../src/platform/logger.js';
import {
  dropExternalDatabase,
  openServiceDatabase,
  runMigrations,
  type Migration,
  type ServiceDatabase,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';

/**
 * One database backend for a test suite. Every call of open() on the PostgreSQL backend returns a new handle
 * (its own pool) on the same database; on PGlite the data folder admits one open handle per name at a time.
 */
export interface TestBackend {
  label: 'pglite' | 'postgres';
  /** Opens (creating if needed) the named database; runs the migrations when given. */
  open<DB>(name: ServiceDatabaseName, migrations?: readonly Migration[]): Promise<ServiceDatabase<DB>>;
  /** Closes every handle this backend opened, then deletes its data (temp folder or databases). */
  cleanup(): Promise<void>;
  /** bundled: the temp data folder; external: the base URL. For tests that open databases themselves. */
  readonly dataDir: () => Promise<string>;
  readonly databaseUrl: string | undefined;
  /** external: the suffix of this backend's database names ('' on PGlite). */
  readonly nameSuffix: string;
}

export function quietLogger(): Logger {
  return pino({ level: 'silent' });
}

function createBackend(label: 'pglite' | 'postgres', databaseUrl: string | undefined): TestBackend {
  const nameSuffix = label === 'postgres' ? `_t${randomBytes(4).toString('hex')}` : '';
  const handles: ServiceDatabase<any>[] = [];
  const names = new Set<ServiceDatabaseName>();
  let dataDirPromise: Promise<string> | undefined;
  const dataDir = () => (dataDirPromise ??= mkdtemp(path.join(os.tmpdir(), `svc-db-${label}-`)));

  return {
    label,
    databaseUrl,
    nameSuffix,
    dataDir,
    async open<DB>(name: ServiceDatabaseName, migrations?: readonly Migration[]): Promise<ServiceDatabase<DB>> {
      const database = await openServiceDatabase<DB>({
        name,
        mode: label === 'pglite' ? 'bundled' : 'external',
        dataDir: await dataDir(),
        databaseUrl,
        nameSuffix,
        logger: quietLogger(),
      });
      handles.push(database);
      names.add(name);
      if (migrations) await runMigrations(database, migrations);
      return database;
    },
    async cleanup(): Promise<void> {
      const open = handles.splice(0);
      const results = await Promise.allSettled(open.map((h) => h.close()));
      if (databaseUrl) {
        for (const name of names) await dropExternalDatabase(databaseUrl, `${name}${nameSuffix}`);
      }
      names.clear();
      if (dataDirPromise) {
        const dir = await dataDirPromise;
        dataDirPromise = undefined;
        await rm(dir, { recursive: true, force: true });
      }
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/**
 * The backends every database suite runs on: PGlite always, PostgreSQL when SVC_TEST_DATABASE_URL is set.
 * In CI (CI=true) PostgreSQL is required: nothing may be skipped there.
 */
export function testBackends(): TestBackend[] {
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL?.trim() || undefined;
  if (!databaseUrl && process.env.CI === 'true') {
    throw new Error('SVC_TEST_DATABASE_URL must be set in CI: the PostgreSQL variants of the database tests may not be skipped');
  }
  const backends = [createBackend('pglite', undefined)];
  if (databaseUrl) backends.push(createBackend('postgres', databaseUrl));
  return backends;
}
