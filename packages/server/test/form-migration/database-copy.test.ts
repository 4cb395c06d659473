import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropExternalDatabase,
  openServiceDatabase,
  runMigrations,
  type AnyServiceDatabase,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import { CopyError, copyDatabase } from '../../src/form-migration/database-copy.js';
import { fingerprintDatabase } from '../../src/form-migration/fingerprint.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { seedControl, seedStorage } from '../support/form-fixtures.js';

const databaseUrl = postgresTestUrl();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function bundledStore(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-copy-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function open(name: ServiceDatabaseName, where: { dataDir: string } | { suffix: string }) {
  return 'dataDir' in where
    ? openServiceDatabase({ name, mode: 'bundled', dataDir: where.dataDir, logger: quietLogger() })
    : openServiceDatabase({
        name,
        mode: 'external',
        dataDir: '/nonexistent',
        databaseUrl,
        nameSuffix: where.suffix,
        logger: quietLogger(),
      });
}

function externalSuffix(): string {
  const suffix = `_cp${randomBytes(4).toString('hex')}`;
  cleanups.push(async () => {
    for (const name of Object.keys(SERVICE_MIGRATIONS))
      await dropExternalDatabase(databaseUrl!, `${name}${suffix}`);
  });
  return suffix;
}

describe.skipIf(!databaseUrl)('table-by-table copy between the bundled store and PostgreSQL', () => {
  // Four bundled databases opened and copied both ways: minutes on a loaded two-core machine.
  it(
    'copies all four databases both ways with every row, identity and sequence equal',
    { timeout: 600_000 },
    async () => {
      const bundled = await bundledStore();
      const suffix = externalSuffix();
      const handles: Partial<Record<ServiceDatabaseName, AnyServiceDatabase>> = {};
      for (const name of ['svc_config', 'svc_user', 'svc_media'] as const) {
        handles[name] = await open(name, { dataDir: bundled });
        await runMigrations(handles[name], SERVICE_MIGRATIONS[name]);
      }
      await seedControl(
        { config: handles.svc_config!.db, user: handles.svc_user!.db, media: handles.svc_media!.db },
        { storage: ['node-local-storage'], playAgent: ['node-local-play-agent'], scope: 'EMBEDDED' },
      );
      for (const handle of Object.values(handles)) await handle.close();
      const storage = await open('yiyi_storage', { dataDir: bundled });
      await runMigrations(storage, SERVICE_MIGRATIONS.yiyi_storage);
      await seedStorage(storage.db, '/srv/media');
      await storage.close();

      const back = await bundledStore();
      for (const name of Object.keys(SERVICE_MIGRATIONS) as ServiceDatabaseName[]) {
        const source = await open(name, { dataDir: bundled });
        const target = await open(name, { suffix });
        const again = await open(name, { dataDir: back });
        try {
          const there = await copyDatabase(source, target, SERVICE_MIGRATIONS[name], quietLogger());
          expect(Object.values(there.tables).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
          const returned = await copyDatabase(target, again, SERVICE_MIGRATIONS[name], quietLogger());
          expect(returned.fingerprint).toEqual(there.fingerprint);
          expect(await fingerprintDatabase(again.db)).toEqual(await fingerprintDatabase(source.db));
          if (name === 'svc_user') {
            expect(there.tables.activity_log).toBe(1234 - 123);
            // the identity continues after the copied ids, on both sides
            const next = async (db: AnyServiceDatabase) =>
              (
                await sql<{
                  id: string;
                }>`INSERT INTO audit_log (at, actor_name, action) VALUES (now(), 'x', 'y')
                                        RETURNING id::text AS id`.execute(db.db)
              ).rows[0]!.id;
            expect(await next(target)).toBe(await next(source));
          }
          // a second copy into the now filled target is refused, nothing changed
          await expect(copyDatabase(source, target, SERVICE_MIGRATIONS[name], quietLogger())).rejects.toThrow(
            CopyError,
          );
        } finally {
          await again.close();
          await target.close();
          await source.close();
        }
      }
    },
  );
});
