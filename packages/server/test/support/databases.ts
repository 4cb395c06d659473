import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { Logger } from '../../src/platform/logger.js';
import {
  dropExternalDatabase,
  openServiceDatabase,
  runMigrations,
  type AnyServiceDatabase,
  type Migration,
  type ServiceDatabase,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';

/**
 * One database backend for a test suite. Every call of open() on the PostgreSQL backend returns a new handle
 * (its own pool) on the same database; on PGlite the data folder admits one open handle per name at a time, and
 * the databases open at the same time share one embedded instance (a schema each).
 */
export interface TestBackend {
  label: 'pglite' | 'postgres';
  /** Opens (creating if needed) the named database; runs the migrations when given. */
  open<DB>(name: ServiceDatabaseName, migrations?: readonly Migration[]): Promise<ServiceDatabase<DB>>;
  /** Closes every handle this backend opened, then deletes its data (temp folder or databases). */
  cleanup(): Promise<void>;
  /** The temp data folder given to openServiceDatabase (PGlite keeps its databases under it). */
  dataDir(): Promise<string>;
  /** external: the PostgreSQL base URL. */
  readonly databaseUrl: string | undefined;
  /** external: the suffix of this backend's database names ('' on PGlite). */
  readonly nameSuffix: string;
}

export function quietLogger(): Logger {
  return pino({ level: 'silent' });
}

function createBackend(label: 'pglite' | 'postgres', databaseUrl: string | undefined): TestBackend {
  const nameSuffix = label === 'postgres' ? `_t${randomBytes(4).toString('hex')}` : '';
  const handles: AnyServiceDatabase[] = [];
  const names = new Set<ServiceDatabaseName>();
  let rootPromise: Promise<string> | undefined;
  const root = () => (rootPromise ??= mkdtemp(path.join(os.tmpdir(), `svc-db-${label}-`)));
  const dataDir = async () => path.join(await root(), 'data');

  // initdb costs PGlite seconds: an instance folder is initialised once and copied to <data>/db/<name> before a
  // database is opened, so a database that gets an instance of its own (none open) finds it ready.
  let templatePromise: Promise<string> | undefined;
  const template = () =>
    (templatePromise ??= (async () => {
      const templateDir = path.join(await root(), 'template');
      const database = await openServiceDatabase({
        name: 'svc_user',
        mode: 'bundled',
        dataDir: templateDir,
        logger: quietLogger(),
      });
      await database.close();
      return path.join(templateDir, 'db', 'svc_user');
    })());
  const seedFromTemplate = async (name: ServiceDatabaseName) => {
    const target = path.join(await dataDir(), 'db', name);
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (!exists) await cp(await template(), target, { recursive: true });
  };

  return {
    label,
    databaseUrl,
    nameSuffix,
    dataDir,
    async open<DB>(
      name: ServiceDatabaseName,
      migrations?: readonly Migration[],
    ): Promise<ServiceDatabase<DB>> {
      if (label === 'pglite') await seedFromTemplate(name);
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
      if (rootPromise) {
        const dir = await rootPromise;
        rootPromise = undefined;
        templatePromise = undefined;
        await rm(dir, { recursive: true, force: true });
      }
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/** SVC_TEST_DATABASE_URL, when set; in CI (CI=true) it must be set: nothing may be skipped there. */
export function postgresTestUrl(): string | undefined {
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL?.trim() || undefined;
  if (!databaseUrl && process.env.CI === 'true') {
    throw new Error(
      'SVC_TEST_DATABASE_URL must be set in CI: the PostgreSQL variants of the database tests may not be skipped',
    );
  }
  return databaseUrl;
}

/**
 * The backends every database suite runs on: PGlite always, PostgreSQL when SVC_TEST_DATABASE_URL is set.
 * In CI (CI=true) PostgreSQL is required: nothing may be skipped there.
 */
export function testBackends(): TestBackend[] {
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL?.trim() || undefined;
  if (!databaseUrl && process.env.CI === 'true') {
    throw new Error(
      'SVC_TEST_DATABASE_URL must be set in CI: the PostgreSQL variants of the database tests may not be skipped',
    );
  }
  const backends = [createBackend('pglite', undefined)];
  if (databaseUrl) backends.push(createBackend('postgres', databaseUrl));
  return backends;
}
