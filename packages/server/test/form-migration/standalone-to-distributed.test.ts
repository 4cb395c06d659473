import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import { runFormMigration } from '../../src/cli/migrate-forms.js';
import { restoreBackup } from '../../src/form-migration/backup.js';
import { openAt, type DatabaseLocation } from '../../src/form-migration/database-locations.js';
import { migrateToDistributed, PreconditionError } from '../../src/form-migration/distributed.js';
import type { DatabaseFingerprint } from '../../src/form-migration/fingerprint.js';
import { readManifest } from '../../src/form-migration/migration-report.js';
import {
  dropExternalDatabase,
  runMigrations,
  SERVICE_DATABASE_NAMES,
  type AnyServiceDatabase,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { fingerprintOpened, seedControl, seedStorage } from '../support/form-fixtures.js';

const databaseUrl = postgresTestUrl();
const logger = quietLogger();

/** A stopped standalone in the bundled store, with data in all four databases and its data folder. */
async function buildStandalone(root: string): Promise<{ dataDir: string; location: DatabaseLocation }> {
  const dataDir = path.join(root, 'data');
  const location: DatabaseLocation = { mode: 'bundled', dataDir };
  const control: AnyServiceDatabase[] = [];
  for (const name of ['svc_config', 'svc_user', 'svc_media'] as const) {
    const database = await openAt(location, name, logger);
    control.push(database);
    await runMigrations(database, SERVICE_MIGRATIONS[name]);
  }
  await seedControl(
    { config: control[0]!.db, user: control[1]!.db, media: control[2]!.db },
    { storage: ['node-local-storage'], playAgent: ['node-local-play-agent'], scope: 'EMBEDDED' },
  );
  for (const database of control) await database.close();
  const storage = await openAt(location, 'yiyi_storage', logger);
  await runMigrations(storage, SERVICE_MIGRATIONS.yiyi_storage);
  await seedStorage(storage.db, '/srv/films');
  await storage.close();
  await mkdir(path.join(dataDir, 'secrets'), { recursive: true });
  await writeFile(path.join(dataDir, 'secrets', 'storage-secret-key'), randomBytes(32));
  await writeFile(path.join(dataDir, 'secrets', 'service-token'), 'x'.repeat(40));
  await mkdir(path.join(dataDir, 'storage', 'uploads'), { recursive: true });
  await writeFile(path.join(dataDir, 'storage', 'uploads', 'chunk-0'), randomBytes(1000));
  await mkdir(path.join(dataDir, 'play-agent', 'vfs-cache'), { recursive: true });
  await writeFile(path.join(dataDir, 'play-agent', 'vfs-cache', 'segment'), randomBytes(5000));
  return { dataDir, location };
}

async function setEdition(location: DatabaseLocation, edition: string): Promise<void> {
  const config = await openAt(location, 'svc_config', logger);
  try {
    await sql`UPDATE deployment_state SET edition = ${edition} WHERE id = 1`.execute(config.db);
  } finally {
    await config.close();
  }
}

function fingerprintAt(location: DatabaseLocation, name: ServiceDatabaseName): Promise<DatabaseFingerprint> {
  return fingerprintOpened(openAt(location, name, logger));
}

describe.skipIf(!databaseUrl)('svc migrate distributed (bundled standalone → control PostgreSQL)', () => {
  const suffix = `_mig${randomBytes(4).toString('hex')}`;
  const target: DatabaseLocation = { mode: 'external', databaseUrl: databaseUrl!, nameSuffix: suffix };
  let root = '';
  afterAll(async () => {
    for (const name of SERVICE_DATABASE_NAMES) await dropExternalDatabase(databaseUrl!, `${name}${suffix}`);
    if (root) await rm(root, { recursive: true, force: true });
  });

  it(
    'checks, backs up, moves the four databases equal table by table, and rolls back',
    { timeout: 900_000 },
    async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'svc-to-distributed-'));
      const { dataDir, location } = await buildStandalone(root);
      const lines: string[] = [];
      const options = (backupDir: string, checkOnly = false) => ({
        source: location,
        dataDir,
        cacheDirs: [
          path.join(dataDir, 'play-agent', 'vfs-cache'),
          path.join(dataDir, 'play-agent', 'image-cache'),
        ],
        target: { databaseUrl: databaseUrl!, nameSuffix: suffix },
        backupDir,
        configUrl: 'http://10.0.0.1:18085',
        showTokens: false,
        checkOnly,
        migrations: SERVICE_MIGRATIONS,
        logger,
        out: (line: string) => lines.push(line),
      });

      // Preconditions: the edition upgrade comes first; a running standalone is refused.
      await expect(migrateToDistributed(options(path.join(root, 'b0'), true))).rejects.toThrow(
        /edition is still STANDALONE/,
      );
      await setEdition(location, 'DISTRIBUTED');
      await mkdir(path.join(dataDir, 'run'), { recursive: true });
      await writeFile(path.join(dataDir, 'run', 'svc.pid'), `${process.ppid}\n`);
      await expect(migrateToDistributed(options(path.join(root, 'b0'), true))).rejects.toThrow(
        PreconditionError,
      );
      await rm(path.join(dataDir, 'run', 'svc.pid'));
      await migrateToDistributed(options(path.join(root, 'b0'), true));
      expect(lines.at(-1)).toMatch(/nothing was changed/);

      const before = Object.fromEntries(
        await Promise.all(
          SERVICE_DATABASE_NAMES.map(async (name) => [name, await fingerprintAt(location, name)] as const),
        ),
      );
      const backupDir = path.join(root, 'backup');
      const result = await migrateToDistributed(options(backupDir));
      expect(result.migrated).toBe(true);

      // Data before = data after, table by table, and the standalone untouched.
      for (const name of SERVICE_DATABASE_NAMES) {
        const after = await fingerprintAt(target, name);
        const source = await fingerprintAt(location, name);
        expect(Object.keys(after.tables)).toEqual(Object.keys(before[name]!.tables));
        for (const table of Object.keys(before[name]!.tables)) {
          expect({ table, ...after.tables[table] }).toEqual({ table, ...before[name]!.tables[table] });
          expect({ table, ...source.tables[table] }).toEqual({ table, ...before[name]!.tables[table] });
        }
        expect(after.sequences).toEqual(before[name]!.sequences);
      }
      expect(result.tables.svc_user?.activity_log).toBe(1234 - 123);
      expect(result.tables.yiyi_storage?.storage_mounts).toBe(2);

      // The plan: roles in order, then per former built-in node the take-over with its id and the install.
      const text = lines.join('\n');
      expect(text.indexOf('svc role control')).toBeLessThan(text.indexOf('svc role user'));
      expect(text.indexOf('svc role media')).toBeLessThan(text.indexOf('svc role edge'));
      expect(text).toContain(
        `-d '{"nodeId":"node-local-storage","serviceType":"svc-control-storage","name":"node-local-storage",` +
          `"expectedHost":"<target machine address>"}'`,
      );
      expect(text).toMatch(
        /storage node node-local-storage:\n(.*\n){3}\s+curl -fsSL http:\/\/10\.0\.0\.1:18085\/api\/config\/nodes\/install\/<the new node token>\/binary \| bash/,
      );
      expect(text).toMatch(/play-agent node node-local-play-agent:/);
      expect(text).toContain('"serviceType":"svc-play-agent"');
      // The records' current tokens open nothing after a take-over: they are never printed.
      expect(text).not.toMatch(/svc_nt_/);

      // The backup: data folder without the caches, fingerprints, report.
      expect((await readdir(path.join(backupDir, 'data'))).sort()).toEqual([
        'db',
        'play-agent',
        'secrets',
        'storage',
      ]);
      expect(await readdir(path.join(backupDir, 'data', 'play-agent'))).toEqual([]);
      expect(await readFile(path.join(backupDir, 'data', 'secrets', 'storage-secret-key'))).toEqual(
        await readFile(path.join(dataDir, 'secrets', 'storage-secret-key')),
      );
      const report = JSON.parse(await readFile(path.join(backupDir, 'migration-report.json'), 'utf8')) as {
        migrated: boolean;
      };
      expect(report.migrated).toBe(true);

      // A second move into the filled target is refused before anything is written.
      await expect(migrateToDistributed(options(path.join(root, 'b2')))).rejects.toThrow(/is not empty/);
      expect(await readdir(root)).not.toContain('b2');

      // Rollback 1: drop the copies on the control PostgreSQL (needs --confirm).
      process.env.SVC_TARGET_DATABASE_URL = databaseUrl;
      try {
        expect(await runFormMigration('distributed-rollback', ['--target-suffix', suffix])).toBe(3);
        expect(await runFormMigration('distributed-rollback', ['--target-suffix', suffix, '--confirm'])).toBe(
          0,
        );
      } finally {
        delete process.env.SVC_TARGET_DATABASE_URL;
      }
      const dropped = await openAt(target, 'svc_user', logger); // created again, empty
      try {
        const { rows } = await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`.execute(dropped.db);
        expect(rows[0]!.n).toBe(0);
      } finally {
        await dropped.close();
      }

      // Rollback 2: after a failed verification, the standalone's backup is put back.
      const user = await openAt(location, 'svc_user', logger);
      await sql`DELETE FROM activity_log WHERE id < 100`.execute(user.db);
      await user.close();
      await rm(path.join(dataDir, 'secrets', 'storage-secret-key'));
      const restored = await restoreBackup({ backupDir, dataDir, location, logger });
      expect(restored.restoredDatabases).toEqual([...SERVICE_DATABASE_NAMES]);
      const manifest = await readManifest(backupDir);
      for (const name of SERVICE_DATABASE_NAMES) {
        expect(await fingerprintAt(location, name)).toEqual(manifest.fingerprints[name]);
      }
      expect(await readFile(path.join(dataDir, 'secrets', 'storage-secret-key'))).toEqual(
        await readFile(path.join(backupDir, 'data', 'secrets', 'storage-secret-key')),
      );
      expect(restored.movedAside).toBeDefined();
      await rm(restored.movedAside!, { recursive: true, force: true });
    },
  );
});
