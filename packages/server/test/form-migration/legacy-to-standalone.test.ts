import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import {
  openAt,
  openExistingDatabase,
  type DatabaseLocation,
} from '../../src/form-migration/database-locations.js';
import { PreconditionError } from '../../src/form-migration/distributed.js';
import type { DatabaseFingerprint } from '../../src/form-migration/fingerprint.js';
import type { LegacyLayout } from '../../src/form-migration/legacy-layout.js';
import { legacyPrecheck } from '../../src/form-migration/legacy-precheck.js';
import { legacyPromote } from '../../src/form-migration/legacy-promote.js';
import {
  dropExternalDatabase,
  runMigrations,
  SERVICE_DATABASE_NAMES,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';
import { ACTIVITY_RETENTION_KEY } from '../../src/services/user/reports/retention.service.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { fingerprintOpened, seedControl, seedStorage } from '../support/form-fixtures.js';
import { retentionShown } from '../support/retention-shown.js';

const databaseUrl = postgresTestUrl();
const logger = quietLogger();
const created: string[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const name of created) await dropExternalDatabase(databaseUrl!, name);
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `svc-legacy-${label}-`));
  folders.push(dir);
  return dir;
}

/**
 * A legacy multi-container install as the test builds it: four databases on PostgreSQL (the storage node's
 * under a name of its own), EXTERNAL worker records, the storage node's data folder and the play-agent caches.
 */
async function buildLegacy(nodes: { storage: string[]; playAgent: string[] }): Promise<LegacyLayout> {
  const suffix = `_lg${randomBytes(4).toString('hex')}`;
  const names = {
    svc_config: `svc_config${suffix}`,
    svc_user: `svc_user${suffix}`,
    svc_media: `svc_media${suffix}`,
    yiyi_storage: `legacy_storage${suffix}`,
  } satisfies Record<ServiceDatabaseName, string>;
  const location: DatabaseLocation = { mode: 'external', databaseUrl: databaseUrl!, nameSuffix: suffix };
  const open = async (name: ServiceDatabaseName) => {
    const database = await openAt(location, name, logger);
    created.push(database.databaseName);
    await runMigrations(database, SERVICE_MIGRATIONS[name]);
    return database;
  };
  const [config, user, media, storage] = [
    await open('svc_config'),
    await open('svc_user'),
    await open('svc_media'),
    await open('yiyi_storage'),
  ];
  await seedControl({ config: config.db, user: user.db, media: media.db }, { ...nodes, scope: 'EXTERNAL' });
  await seedStorage(storage.db, '/srv/films');
  for (const database of [config, user, media, storage]) await database.close();
  // The legacy storage node kept its database under another name.
  const admin = await openExistingDatabase(databaseUrl!, 'postgres');
  await sql.raw(`ALTER DATABASE "yiyi_storage${suffix}" RENAME TO "${names.yiyi_storage}"`).execute(admin.db);
  await admin.close();
  created.push(names.yiyi_storage);

  const root = await tempDir('layout');
  const storageData = path.join(root, 'storage-data');
  await mkdir(path.join(storageData, 'secrets'), { recursive: true });
  await writeFile(path.join(storageData, 'secrets', 'storage-secret-key'), randomBytes(32));
  await mkdir(path.join(storageData, 'storage', 'uploads', 'u1'), { recursive: true });
  await writeFile(path.join(storageData, 'storage', 'uploads', 'u1', 'chunk-0'), randomBytes(4096));
  await mkdir(path.join(storageData, 'db'), { recursive: true });
  await writeFile(path.join(storageData, 'db', 'not-copied'), 'x');
  const vfs = path.join(root, 'vfs-cache');
  await mkdir(path.join(vfs, 'ab'), { recursive: true });
  await writeFile(path.join(vfs, 'ab', 'segment.bin'), randomBytes(100_000));
  const images = path.join(root, 'image-cache');
  await mkdir(images, { recursive: true });
  await writeFile(path.join(images, 'poster.jpg'), randomBytes(2000));
  return {
    databaseUrl: databaseUrl!,
    storageDatabaseUrl: databaseUrl!,
    names,
    storageDataDir: storageData,
    vfsCacheDir: vfs,
    imageCacheDir: images,
  };
}

function fingerprintLegacy(layout: LegacyLayout, name: ServiceDatabaseName): Promise<DatabaseFingerprint> {
  return fingerprintOpened(openExistingDatabase(databaseUrl!, layout.names[name]));
}

function fingerprintAt(location: DatabaseLocation, name: ServiceDatabaseName): Promise<DatabaseFingerprint> {
  return fingerprintOpened(openAt(location, name, logger));
}

describe.skipIf(!databaseUrl)('legacy multi-container → standalone', () => {
  it(
    'pre-check with one node of each type writes the embedded ids and changes nothing',
    { timeout: 600_000 },
    async () => {
      const layout = await buildLegacy({ storage: ['node-legacy-st1'], playAgent: ['node-legacy-pa1'] });
      const before = await Promise.all(SERVICE_DATABASE_NAMES.map((name) => fingerprintLegacy(layout, name)));
      const envFile = path.join(await tempDir('env'), '.env');
      await writeFile(
        envFile,
        '# kept\nSVC_DB_PASSWORD=abc\nSVC_EMBEDDED_STORAGE_NODE_ID=node-local-storage\n',
      );
      const lines: string[] = [];
      const result = await legacyPrecheck({ layout, envFile, out: (line) => lines.push(line) });
      expect(result.written).toEqual({
        SVC_EMBEDDED_STORAGE_NODE_ID: 'node-legacy-st1',
        SVC_EMBEDDED_PLAY_AGENT_NODE_ID: 'node-legacy-pa1',
      });
      expect(await readFile(envFile, 'utf8')).toBe(
        '# kept\nSVC_DB_PASSWORD=abc\nSVC_EMBEDDED_STORAGE_NODE_ID=node-legacy-st1\nSVC_EMBEDDED_PLAY_AGENT_NODE_ID=node-legacy-pa1\n',
      );
      expect(
        await Promise.all(SERVICE_DATABASE_NAMES.map((name) => fingerprintLegacy(layout, name))),
      ).toEqual(before);
    },
  );

  describe.each(['postgres', 'pglite'] as const)(
    'with several storage nodes, into a standalone on %s',
    (targetKind) => {
      it(
        'reports the impact, promotes the chosen ids, imports everything and passes the checklist',
        { timeout: 900_000 },
        async () => {
          const layout = await buildLegacy({
            storage: ['node-legacy-st1', 'node-legacy-st2'],
            playAgent: ['node-legacy-pa1'],
          });
          const legacyBefore = Object.fromEntries(
            await Promise.all(
              SERVICE_DATABASE_NAMES.map(
                async (name) => [name, await fingerprintLegacy(layout, name)] as const,
              ),
            ),
          );
          const root = await tempDir('standalone');
          const dataDir = path.join(root, 'data');
          const targetSuffix = `_st${randomBytes(4).toString('hex')}`;
          const target: DatabaseLocation =
            targetKind === 'postgres'
              ? { mode: 'external', databaseUrl: databaseUrl!, nameSuffix: targetSuffix }
              : { mode: 'bundled', dataDir };
          if (targetKind === 'postgres')
            created.push(...SERVICE_DATABASE_NAMES.map((name) => `${name}${targetSuffix}`));
          const envFile = path.join(root, '.env');

          // The pre-check stops with the impact report and writes nothing.
          const lines: string[] = [];
          const precheck = await legacyPrecheck({ layout, envFile, out: (line) => lines.push(line) });
          expect(precheck.written).toBeNull();
          expect(precheck.report.choiceRequired).toEqual({ storage: true, playAgent: false });
          expect(
            precheck.report.storage.map((node) => [node.nodeId, node.mediaSources, node.taskReferences]),
          ).toEqual([
            ['node-legacy-st1', 2, 2],
            ['node-legacy-st2', 3, 3],
          ]);
          expect(precheck.report.playAgent[0]).toMatchObject({
            nodeId: 'node-legacy-pa1',
            userAuthorizations: 2,
            taskReferences: 1,
          });
          expect(precheck.report.manualProxies).toEqual({ total: 2, enabled: 2 });
          expect(lines.join('\n')).toMatch(/node-legacy-st2 \(storage node-legacy-st2\): 3 media sources/);

          const options = {
            layout,
            target,
            targetDataDir: dataDir,
            targetCacheDirs: {
              vfs: path.join(dataDir, 'play-agent', 'vfs-cache'),
              image: path.join(dataDir, 'play-agent', 'image-cache'),
            },
            storageNodeId: 'node-legacy-st2',
            playAgentNodeId: 'node-legacy-pa1',
            confirm: true,
            backupDir: path.join(root, 'backup'),
            envFile,
            migrations: SERVICE_MIGRATIONS,
            logger,
            out: (line: string) => lines.push(line),
          };
          await expect(legacyPromote({ ...options, confirm: false })).rejects.toThrow(/--confirm/);
          await expect(legacyPromote({ ...options, storageNodeId: 'node-legacy-pa1' })).rejects.toThrow(
            PreconditionError,
          );
          await expect(legacyPromote({ ...options, storageNodeId: undefined })).rejects.toThrow(
            /--storage-node/,
          );
          // Old services still connected: refused.
          const url = new URL(databaseUrl!);
          url.pathname = `/${layout.names.svc_media}`;
          const oldService = new pg.Client({ connectionString: url.href, application_name: 'legacy media' });
          await oldService.connect();
          try {
            await expect(legacyPromote(options)).rejects.toThrow(
              /other connection\(s\): stop the old services/,
            );
          } finally {
            await oldService.end();
          }

          const result = await legacyPromote(options);
          expect(result.promoted.map((node) => node.nodeId).sort()).toEqual([
            'node-legacy-pa1',
            'node-legacy-st2',
          ]);
          expect(result.disabled.map((node) => node.nodeId)).toEqual(['node-legacy-st1']);
          expect(result.checklist.every((item) => item.ok)).toBe(true);

          // Data before = data after, table by table; only the node records changed (scope, disabled, updated_at).
          for (const name of SERVICE_DATABASE_NAMES) {
            const after = await fingerprintAt(target, name);
            expect(Object.keys(after.tables)).toEqual(Object.keys(legacyBefore[name]!.tables));
            for (const table of Object.keys(after.tables)) {
              if (name === 'svc_config' && table === 'nodes') continue;
              // the one row the promotion adds: the retention of the legacy history (checked below)
              if (name === 'svc_user' && table === 'system_settings') continue;
              expect({ table, ...after.tables[table] }).toEqual({
                table,
                ...legacyBefore[name]!.tables[table],
              });
            }
            expect(after.sequences).toEqual(legacyBefore[name]!.sequences);
            // the legacy install is unchanged: rollback is starting the old containers again
            expect(await fingerprintLegacy(layout, name)).toEqual(legacyBefore[name]);
          }
          // Activity-log retention: the legacy install stored none, so the standalone shows the V242 value.
          expect(result.retention).toEqual({ days: 365, source: 'legacy-history' });
          expect(await retentionShown(target, logger)).toBe(365);
          const user = await openAt(target, 'svc_user', logger);
          try {
            const { rows } = await sql<{ key: string }>`SELECT key FROM system_settings
              EXCEPT SELECT ${ACTIVITY_RETENTION_KEY}`.execute(user.db);
            expect(rows.length).toBe(legacyBefore.svc_user!.tables.system_settings?.rows ?? 0);
          } finally {
            await user.close();
          }
          const config = await openAt(target, 'svc_config', logger);
          const legacyConfig = await openExistingDatabase(databaseUrl!, layout.names.svc_config);
          try {
            const columns = sql`node_id, service_type, scope, disabled, node_token, registry_token, endpoint_token, name`;
            const rows = async (db: typeof config.db) =>
              (await sql<Record<string, unknown>>`SELECT ${columns} FROM nodes ORDER BY node_id`.execute(db))
                .rows;
            const expected = (await rows(legacyConfig.db)).map((row) =>
              ['node-legacy-st2', 'node-legacy-pa1'].includes(row.node_id as string)
                ? { ...row, scope: 'EMBEDDED' }
                : row.node_id === 'node-legacy-st1'
                  ? { ...row, disabled: true }
                  : row,
            );
            expect(await rows(config.db)).toEqual(expected);
          } finally {
            await legacyConfig.close();
            await config.close();
          }

          // The environment file, the storage data (key, spool; not its db/) and both caches.
          const env = await readFile(envFile, 'utf8');
          expect(env).toContain('SVC_EMBEDDED_STORAGE_NODE_ID=node-legacy-st2\n');
          expect(env).toContain('SVC_EMBEDDED_PLAY_AGENT_NODE_ID=node-legacy-pa1\n');
          const same = async (a: string, b: string) => expect(await readFile(b)).toEqual(await readFile(a));
          await same(
            path.join(layout.storageDataDir!, 'secrets', 'storage-secret-key'),
            path.join(dataDir, 'secrets', 'storage-secret-key'),
          );
          await same(
            path.join(layout.storageDataDir!, 'storage', 'uploads', 'u1', 'chunk-0'),
            path.join(dataDir, 'storage', 'uploads', 'u1', 'chunk-0'),
          );
          await same(
            path.join(layout.vfsCacheDir!, 'ab', 'segment.bin'),
            path.join(options.targetCacheDirs.vfs, 'ab', 'segment.bin'),
          );
          await same(
            path.join(layout.imageCacheDir!, 'poster.jpg'),
            path.join(options.targetCacheDirs.image, 'poster.jpg'),
          );
          await expect(readFile(path.join(dataDir, 'db', 'not-copied'))).rejects.toThrow();

          // A second run into the now filled standalone is refused.
          await expect(legacyPromote({ ...options, backupDir: path.join(root, 'backup2') })).rejects.toThrow(
            /not empty/,
          );
        },
      );
    },
  );
});
