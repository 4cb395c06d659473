import path from 'node:path';
import { sql } from 'kysely';
import { SERVICE_DATABASE_NAMES, type Migration, type ServiceDatabaseName } from '../platform/db/index.js';
import type { Logger } from '../platform/logger.js';
import { claimSupervisorLock } from '../runtime/supervisor.js';
import { backupDatabasesAt, takeBackup } from './backup.js';
import { appliedMigrations, schemaIsEmpty } from './catalog.js';
import { copyDatabase, CopyError } from './database-copy.js';
import {
  databaseNameAt,
  describeServer,
  openAt,
  openExistingDatabase,
  otherSessions,
  type DatabaseLocation,
  type SourceDatabase,
} from './database-locations.js';
import { compareFingerprints, describeDifferences, fingerprintDatabase } from './fingerprint.js';
import { BACKUP_FILES, writeJson } from './migration-report.js';
import { distributedPlan, type WorkerNodeRecord } from './distributed-plan.js';

/** A precondition that does not hold: nothing was changed. */
export class PreconditionError extends Error {}

export interface DistributedMigrationOptions {
  /** The standalone's databases (its own settings: the bundled store, or its compose PostgreSQL). */
  source: DatabaseLocation;
  /** The standalone's data folder. */
  dataDir: string;
  /** Folders left out of the backup (the play-agent caches). */
  cacheDirs: readonly string[];
  /** The control machine's PostgreSQL. */
  target: { databaseUrl: string; nameSuffix: string };
  backupDir: string;
  /** The config service address worker nodes will use (printed into their install commands). */
  configUrl: string | undefined;
  showTokens: boolean;
  /** Only check the preconditions. */
  checkOnly: boolean;
  migrations: Record<ServiceDatabaseName, readonly Migration[]>;
  logger: Logger;
  out: (line: string) => void;
}

export interface DistributedMigrationResult {
  checked: true;
  migrated: boolean;
  tables: Partial<Record<ServiceDatabaseName, Record<string, number>>>;
  workers: WorkerNodeRecord[];
}

function openSource(
  location: DatabaseLocation,
  name: ServiceDatabaseName,
  logger: Logger,
): Promise<SourceDatabase> {
  return location.mode === 'external'
    ? openExistingDatabase(location.databaseUrl, databaseNameAt(location, name))
    : openAt(location, name, logger);
}

async function withDatabase<T>(
  open: Promise<SourceDatabase>,
  work: (db: SourceDatabase) => Promise<T>,
): Promise<T> {
  const database = await open;
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Preconditions of the standalone → distributed move (docs/deployment.md). Throws PreconditionError. */
async function checkPreconditions(options: DistributedMigrationOptions): Promise<void> {
  const { source, target, logger, out } = options;
  if (
    source.mode === 'external' &&
    describeServer(source.databaseUrl) === describeServer(target.databaseUrl)
  ) {
    if (
      SERVICE_DATABASE_NAMES.some(
        (name) => databaseNameAt(source, name) === databaseNameAt({ mode: 'external', ...target }, name),
      )
    ) {
      throw new PreconditionError(
        'the target databases are the source databases: choose another server or suffix',
      );
    }
  }
  for (const name of SERVICE_DATABASE_NAMES) {
    await withDatabase(openSource(source, name, logger), async (database) => {
      if (source.mode === 'external') {
        const sessions = await otherSessions(database);
        if (sessions > 0) {
          throw new PreconditionError(
            `${database.databaseName} has ${sessions} other connection(s): stop the standalone deployment first`,
          );
        }
      }
      const applied = await appliedMigrations(database.db);
      const known = options.migrations[name].map((migration) => migration.name);
      if (applied.join(',') !== known.join(',')) {
        throw new PreconditionError(
          `${database.databaseName} is not at this program's schema (${applied.length} of ${known.length} ` +
            'migrations): start the standalone once with this version, or run svc migrate, then try again',
        );
      }
      if (name === 'svc_config') {
        const { rows } = await sql<{
          edition: string;
        }>`SELECT edition FROM deployment_state WHERE id = 1`.execute(database.db);
        if (rows[0]?.edition !== 'DISTRIBUTED') {
          throw new PreconditionError(
            'the edition is still STANDALONE: run the edition upgrade first (console "upgrade to distributed" or ' +
              'POST /api/admin/licenses/{id}/edition), then stop the standalone and run this again',
          );
        }
      }
    });
  }
  out(
    `  source: ${source.mode === 'bundled' ? `bundled store in ${source.dataDir}` : describeServer(source.databaseUrl)}, stopped, edition DISTRIBUTED, schema current`,
  );

  const targetLocation: DatabaseLocation = { mode: 'external', ...target };
  for (const name of SERVICE_DATABASE_NAMES) {
    let database;
    try {
      database = await openAt(targetLocation, name, logger);
    } catch (error) {
      throw new PreconditionError(`the target PostgreSQL is not usable: ${(error as Error).message}`);
    }
    try {
      if (!(await schemaIsEmpty(database.db))) {
        throw new PreconditionError(
          `the target database ${database.databaseName} on ${describeServer(target.databaseUrl)} is not empty: ` +
            'the move copies only into new, empty databases (drop it, or choose another SVC_DB_NAME_SUFFIX)',
        );
      }
    } finally {
      await database.close();
    }
  }
  out(
    `  target: ${describeServer(target.databaseUrl)} reachable, ${SERVICE_DATABASE_NAMES.map((name) => databaseNameAt(targetLocation, name)).join(', ')} empty`,
  );
}

/** The EMBEDDED (former built-in) worker nodes from the copied svc_config. */
async function formerBuiltInNodes(database: SourceDatabase): Promise<WorkerNodeRecord[]> {
  const { rows } = await sql<WorkerNodeRecord>`
    SELECT node_id AS "nodeId", service_type AS "serviceType"
      FROM nodes WHERE scope = 'EMBEDDED' AND service_type IN ('svc-control-storage', 'svc-play-agent')
     ORDER BY service_type, node_id`.execute(database.db);
  return rows;
}

/**
 * `svc migrate distributed`: moves a stopped standalone's four databases to the control machine's PostgreSQL.
 * The source is only read; the old deployment stays as it was until the operator decommissions it.
 */
export async function migrateToDistributed(
  options: DistributedMigrationOptions,
): Promise<DistributedMigrationResult> {
  const { out, logger } = options;
  const targetLocation: DatabaseLocation = { mode: 'external', ...options.target };
  // Keeps the standalone from starting on this data folder while the move runs (and refuses a running one).
  let release: () => void;
  try {
    release = claimSupervisorLock(path.join(options.dataDir, 'run'));
  } catch (error) {
    throw new PreconditionError(`${(error as Error).message}: stop the standalone deployment first`);
  }
  const result: DistributedMigrationResult = { checked: true, migrated: false, tables: {}, workers: [] };
  let backupTaken = false;
  try {
    out('1. preconditions');
    await checkPreconditions(options);
    if (options.checkOnly) {
      out('preconditions hold; nothing was changed (run again without --check to migrate)');
      return result;
    }

    out(`2. backup into ${options.backupDir}`);
    const manifest = await takeBackup({
      kind: options.source.mode,
      databases: backupDatabasesAt(options.source, logger),
      folders: [
        {
          label: BACKUP_FILES.data,
          dir: options.dataDir,
          exclude: [...options.cacheDirs, path.join(options.dataDir, 'run')],
        },
      ],
      backupDir: options.backupDir,
      logger,
    });
    backupTaken = true;
    out(
      `  data folder copied${options.source.mode === 'external' ? ', four pg_dump files written' : ''}, ${BACKUP_FILES.fingerprints} written`,
    );

    out(`3. copy the databases to ${describeServer(options.target.databaseUrl)}`);
    for (const name of SERVICE_DATABASE_NAMES) {
      await withDatabase(openSource(options.source, name, logger), async (source) => {
        const target = await openAt(targetLocation, name, logger);
        try {
          const copied = await copyDatabase(source, target, options.migrations[name], logger);
          result.tables[name] = copied.tables;
          const rows = Object.values(copied.tables).reduce((a, b) => a + b, 0);
          out(
            `  ${source.databaseName} → ${target.databaseName}: ${Object.keys(copied.tables).length} tables, ${rows} rows, equal table by table`,
          );
        } finally {
          await target.close();
        }
      });
    }

    out('4. verify');
    for (const name of SERVICE_DATABASE_NAMES) {
      const expected = manifest.fingerprints[name]!;
      const sourceNow = await withDatabase(openSource(options.source, name, logger), (db) =>
        fingerprintDatabase(db.db),
      );
      const untouched = compareFingerprints(expected, sourceNow);
      if (untouched.length > 0) {
        throw new CopyError(`the source changed during the move: ${describeDifferences(name, untouched)}`);
      }
      const targetNow = await withDatabase(openAt(targetLocation, name, logger), async (db) => {
        if (name === 'svc_config') result.workers = await formerBuiltInNodes(db);
        return fingerprintDatabase(db.db);
      });
      const differences = compareFingerprints(expected, targetNow);
      if (differences.length > 0)
        throw new CopyError(`the target differs: ${describeDifferences(name, differences)}`);
      out(
        `  ${databaseNameAt(targetLocation, name)}: ${Object.keys(targetNow.tables).length} tables equal to the backup; the source is unchanged`,
      );
    }
    result.migrated = true;

    out('5. next steps');
    for (const line of distributedPlan({
      target: options.target,
      configUrl: options.configUrl,
      dataDir: options.dataDir,
      workers: result.workers,
      showTokens: options.showTokens,
    })) {
      out(line);
    }
    return result;
  } finally {
    if (backupTaken) {
      await writeJson(path.join(options.backupDir, BACKUP_FILES.report), {
        kind: 'standalone-to-distributed',
        finishedAt: new Date().toISOString(),
        migrated: result.migrated,
        target: { server: describeServer(options.target.databaseUrl), suffix: options.target.nameSuffix },
        tables: result.tables,
        workers: result.workers.map(({ nodeId, serviceType }) => ({ nodeId, serviceType })),
      }).catch(() => undefined);
    }
    release();
  }
}
