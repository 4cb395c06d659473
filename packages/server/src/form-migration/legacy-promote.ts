import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from '../platform/cache/index.js';
import {
  runMigrations,
  SERVICE_DATABASE_NAMES,
  type AnyServiceDatabase,
  type Migration,
  type ServiceDatabaseName,
} from '../platform/db/index.js';
import type { Logger } from '../platform/logger.js';
import { claimSupervisorLock } from '../runtime/supervisor.js';
import type { ConfigDatabase } from '../services/config/config.db.js';
import { LegacyNodesService } from '../services/config/deployment/legacy-nodes.service.js';
import { NodesRepository } from '../services/config/nodes/nodes.repository.js';
import { takeBackup } from './backup.js';
import { schemaIsEmpty } from './catalog.js';
import { copyDatabase, CopyError } from './database-copy.js';
import {
  databaseNameAt,
  describeServer,
  openAt,
  otherSessions,
  type DatabaseLocation,
} from './database-locations.js';
import { PreconditionError } from './distributed.js';
import { readEnvironmentVariable, setEnvironmentVariables } from './env-file.js';
import { compareFingerprints, describeDifferences, fingerprintDatabase } from './fingerprint.js';
import { copyFolder, exists, folderIsEmpty, type FolderSummary } from './folder-copy.js';
import { legacyChecklist, routeFacts, type ChecklistItem } from './legacy-checklist.js';
import { describeImpact, KIND_VARIABLES, legacyImpactReport, type LegacyNodeKind } from './legacy-impact.js';
import {
  describeLegacy,
  legacyServer,
  openLegacy,
  withLegacyControl,
  type LegacyLayout,
} from './legacy-layout.js';
import { carryLegacyRetention, type LegacyRetentionOutcome } from './legacy-retention.js';
import { BACKUP_FILES, writeJson } from './migration-report.js';

export interface LegacyPromoteOptions {
  layout: LegacyLayout;
  /** The standalone's databases (its own settings). */
  target: DatabaseLocation;
  /** The standalone's data folder and play-agent cache folders. */
  targetDataDir: string;
  targetCacheDirs: { vfs: string; image: string };
  storageNodeId: string | undefined;
  playAgentNodeId: string | undefined;
  confirm: boolean;
  backupDir: string;
  envFile: string;
  migrations: Record<ServiceDatabaseName, readonly Migration[]>;
  logger: Logger;
  out: (line: string) => void;
  clock?: Clock;
}

export interface LegacyPromoteResult {
  promoted: { serviceType: string; nodeId: string }[];
  disabled: { serviceType: string; nodeId: string }[];
  tables: Partial<Record<ServiceDatabaseName, Record<string, number>>>;
  folders: Record<string, FolderSummary>;
  checklist: ChecklistItem[];
  /** The activity-log retention the standalone ends with (kept, or the legacy history's V242 value). */
  retention?: LegacyRetentionOutcome;
}

const SECRET_KEY = path.join('secrets', 'storage-secret-key');

/** Opens the standalone's databases so the bundled store places them as the standalone runs them. */
async function placeTargets(target: DatabaseLocation, logger: Logger): Promise<void> {
  if (target.mode !== 'bundled') return;
  // The three control databases share the control process's instance; yiyi_storage has one of its own.
  const control: AnyServiceDatabase[] = [];
  try {
    for (const name of ['svc_config', 'svc_user', 'svc_media'] as const)
      control.push(await openAt(target, name, logger));
  } finally {
    for (const database of control) await database.close();
  }
  await (await openAt(target, 'yiyi_storage', logger)).close();
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([readFile(a).catch(() => null), readFile(b).catch(() => null)]);
  return x !== null && y !== null && x.equals(y);
}

async function checkPreconditions(
  options: LegacyPromoteOptions,
): Promise<{ chosen: Record<LegacyNodeKind, string | undefined>; expectedLostSources: number }> {
  const { layout, out } = options;
  if (!options.confirm) throw new PreconditionError('promotion changes the deployment: pass --confirm');
  const chosen: Record<LegacyNodeKind, string | undefined> = {
    storage: options.storageNodeId,
    playAgent: options.playAgentNodeId,
  };
  const report = await withLegacyControl(layout, (dbs) =>
    legacyImpactReport({ config: dbs.config.db, user: dbs.user.db, media: dbs.media.db }),
  );
  for (const line of describeImpact(report)) out(line);
  let expectedLostSources = 0;
  for (const kind of ['storage', 'playAgent'] as const) {
    const candidates = report[kind].map((node) => node.nodeId);
    const id = chosen[kind];
    const flag = kind === 'storage' ? '--storage-node' : '--play-agent-node';
    if (candidates.length > 0 && id === undefined) {
      throw new PreconditionError(
        `name the ${kind === 'storage' ? 'storage' : 'play-agent'} node to keep with ${flag} (one of ${candidates.join(', ')})`,
      );
    }
    if (id !== undefined && !candidates.includes(id)) {
      throw new PreconditionError(
        `${id} is not a legacy ${kind === 'storage' ? 'storage' : 'play-agent'} node (candidates: ${candidates.join(', ') || 'none'})`,
      );
    }
    if (kind === 'storage') {
      expectedLostSources = report.storage
        .filter((node) => node.nodeId !== id)
        .reduce((sum, node) => sum + node.mediaSources, 0);
    }
  }

  for (const name of SERVICE_DATABASE_NAMES) {
    const database = await openLegacy(layout, name);
    try {
      const sessions = await otherSessions(database);
      if (sessions > 0) {
        throw new PreconditionError(
          `${database.databaseName} has ${sessions} other connection(s): stop the old services and external nodes first`,
        );
      }
      if (name === 'svc_config') {
        const { rows } = await sql<{ node_id: string }>`
          SELECT node_id FROM nodes WHERE service_type IN ('svc-control-storage', 'svc-play-agent')
             AND status = 'ONLINE' AND last_heartbeat_at > now() - interval '30 seconds'`.execute(
          database.db,
        );
        if (rows.length > 0) {
          throw new PreconditionError(
            `nodes still send heartbeats (${rows.map((row) => row.node_id).join(', ')}): stop the external nodes first`,
          );
        }
      }
    } finally {
      await database.close();
    }
  }

  const target = options.target;
  for (const name of SERVICE_DATABASE_NAMES) {
    if (
      target.mode === 'external' &&
      describeServer(target.databaseUrl) === describeServer(legacyServer(layout, name)) &&
      databaseNameAt(target, name) === layout.names[name]
    ) {
      throw new PreconditionError(
        `the standalone's ${name} is the legacy database itself: give the standalone new databases (another ` +
          'server or SVC_DB_NAME_SUFFIX) so the legacy deployment stays as it was until the migration is verified',
      );
    }
  }
  await placeTargets(target, options.logger);
  for (const name of SERVICE_DATABASE_NAMES) {
    const database = await openAt(target, name, options.logger);
    try {
      if (!(await schemaIsEmpty(database.db))) {
        throw new PreconditionError(
          `the standalone's database ${database.databaseName} is not empty: the migration imports only into a new install`,
        );
      }
    } finally {
      await database.close();
    }
  }
  if (layout.storageDataDir !== undefined) {
    const legacyKey = path.join(layout.storageDataDir, SECRET_KEY);
    const targetKey = path.join(options.targetDataDir, SECRET_KEY);
    if ((await exists(legacyKey)) && (await exists(targetKey)) && !(await sameFile(legacyKey, targetKey))) {
      throw new PreconditionError(
        `${targetKey} exists and differs from the legacy storage node's key: move it away (it seals no data of an empty install)`,
      );
    }
  }
  for (const [from, to] of [
    [layout.vfsCacheDir, options.targetCacheDirs.vfs],
    [layout.imageCacheDir, options.targetCacheDirs.image],
  ] as const) {
    if (from !== undefined && !(await folderIsEmpty(to))) {
      throw new PreconditionError(
        `the standalone's cache folder ${to} is not empty: empty it, or leave its legacy cache out`,
      );
    }
  }
  out(`  legacy: ${describeLegacy(layout)}, stopped; standalone: new, empty, stopped`);
  return { chosen, expectedLostSources };
}

/**
 * `svc migrate legacy-promote`: legacy multi-container install → standalone, in the spec's order. The legacy
 * databases and folders are only read; every change is made on the standalone's new databases and data folder.
 */
export async function legacyPromote(options: LegacyPromoteOptions): Promise<LegacyPromoteResult> {
  const { layout, target, logger, out } = options;
  let release: () => void;
  try {
    release = claimSupervisorLock(path.join(options.targetDataDir, 'run'));
  } catch (error) {
    throw new PreconditionError(`${(error as Error).message}: stop the standalone first`);
  }
  const result: LegacyPromoteResult = { promoted: [], disabled: [], tables: {}, folders: {}, checklist: [] };
  let backupTaken = false;
  try {
    out('1. pre-check');
    const { chosen, expectedLostSources } = await checkPreconditions(options);

    out(`2. backup into ${options.backupDir}`);
    const manifest = await takeBackup({
      kind: 'external',
      databases: SERVICE_DATABASE_NAMES.map((name) => ({
        name,
        open: () => openLegacy(layout, name),
        dump: { databaseUrl: legacyServer(layout, name), databaseName: layout.names[name] },
      })),
      folders:
        layout.storageDataDir === undefined
          ? []
          : [
              {
                label: 'storage-data',
                dir: layout.storageDataDir,
                exclude: [path.join(layout.storageDataDir, 'db'), path.join(layout.storageDataDir, 'run')],
              },
            ],
      backupDir: options.backupDir,
      logger,
    });
    backupTaken = true;
    out('  four pg_dump files, the storage node data folder and the table fingerprints written');
    const before = await withLegacyControl(layout, (dbs) =>
      routeFacts({ config: dbs.config.db, user: dbs.user.db, media: dbs.media.db }),
    );
    const legacyWorkerIds = (
      await withLegacyControl(
        layout,
        async (dbs) =>
          (
            await sql<{ node_id: string }>`SELECT node_id FROM nodes WHERE scope = 'EXTERNAL'
             AND service_type IN ('svc-control-storage', 'svc-play-agent') ORDER BY node_id`.execute(
              dbs.config.db,
            )
          ).rows,
      )
    ).map((row) => row.node_id);

    out('3. import the databases (the storage database into yiyi_storage)');
    for (const name of SERVICE_DATABASE_NAMES) {
      const source = await openLegacy(layout, name);
      try {
        const database = await openAt(target, name, logger);
        try {
          const copied = await copyDatabase(source, database, options.migrations[name], logger);
          result.tables[name] = copied.tables;
          const { applied } = await runMigrations(database, options.migrations[name]);
          const rows = Object.values(copied.tables).reduce((a, b) => a + b, 0);
          out(
            `  ${source.databaseName} → ${database.databaseName}: ${Object.keys(copied.tables).length} tables, ${rows} rows, equal table by table` +
              (applied.length > 0 ? `; then applied ${applied.join(', ')}` : ''),
          );
        } finally {
          await database.close();
        }
      } finally {
        await source.close();
      }
    }

    const user = await openAt(target, 'svc_user', logger);
    try {
      result.retention = await carryLegacyRetention(user.db, options.clock ?? systemClock);
      out(
        `  activity-log retention: ${result.retention.days} days (${
          result.retention.source === 'kept' ? 'the stored value, kept' : 'no stored value: the V242 value'
        })`,
      );
    } finally {
      await user.close();
    }

    out('4. promote the chosen nodes, keeping their ids');
    const config = await openAt(target, 'svc_config', logger);
    try {
      const service = new LegacyNodesService({
        nodes: new NodesRepository(config.db as Kysely<ConfigDatabase>),
        embeddedNodes: {
          storage: chosen.storage ?? 'node-local-storage',
          playAgent: chosen.playAgent ?? 'node-local-play-agent',
        },
        clock: options.clock ?? systemClock,
      });
      const promoted = await service.promote({
        ...(chosen.storage === undefined ? {} : { storageNodeId: chosen.storage }),
        ...(chosen.playAgent === undefined ? {} : { playAgentNodeId: chosen.playAgent }),
        confirm: true,
      });
      result.promoted = promoted.promoted;
      result.disabled = promoted.disabled;
      out(
        `  promoted ${promoted.promoted.map((node) => node.nodeId).join(', ')}; disabled ${promoted.disabled.map((node) => node.nodeId).join(', ') || 'none'}`,
      );
    } finally {
      await config.close();
    }
    const variables: Record<string, string> = {};
    for (const kind of ['storage', 'playAgent'] as const) {
      const id = chosen[kind];
      if (id !== undefined) variables[KIND_VARIABLES[kind]] = id;
    }
    await setEnvironmentVariables(options.envFile, variables);
    out(
      `  ${Object.entries(variables)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')} written into ${options.envFile}`,
    );

    out('5. move the storage node data (sealed-credential key, upload spool, mount data) and the caches');
    if (layout.storageDataDir !== undefined) {
      const exclude = [path.join(layout.storageDataDir, 'db'), path.join(layout.storageDataDir, 'run')];
      if (
        await sameFile(
          path.join(layout.storageDataDir, SECRET_KEY),
          path.join(options.targetDataDir, SECRET_KEY),
        )
      ) {
        exclude.push(path.join(layout.storageDataDir, SECRET_KEY));
      }
      result.folders['storage data'] = await copyFolder(
        layout.storageDataDir,
        options.targetDataDir,
        exclude,
      );
    }
    if (layout.vfsCacheDir !== undefined)
      result.folders['VFS cache'] = await copyFolder(layout.vfsCacheDir, options.targetCacheDirs.vfs);
    if (layout.imageCacheDir !== undefined)
      result.folders['image cache'] = await copyFolder(layout.imageCacheDir, options.targetCacheDirs.image);
    for (const [label, summary] of Object.entries(result.folders))
      out(`  ${label}: ${summary.files} files, ${summary.bytes} bytes`);

    out('6. verify');
    for (const name of SERVICE_DATABASE_NAMES) {
      const database = await openLegacy(layout, name);
      try {
        const differences = compareFingerprints(
          manifest.fingerprints[name]!,
          await fingerprintDatabase(database.db),
        );
        if (differences.length > 0)
          throw new CopyError(`the legacy database changed: ${describeDifferences(name, differences)}`);
      } finally {
        await database.close();
      }
    }
    const targets: AnyServiceDatabase[] = [];
    try {
      for (const name of ['svc_config', 'svc_user', 'svc_media'] as const)
        targets.push(await openAt(target, name, logger));
      const [config, user, media] = targets.map((database) => database.db);
      const after = await routeFacts({ config: config!, user: user!, media: media! });
      result.checklist = await legacyChecklist({
        chosen,
        config: config!,
        before,
        after,
        expectedLostSources,
        environment: {
          storage: await readEnvironmentVariable(options.envFile, KIND_VARIABLES.storage),
          playAgent: await readEnvironmentVariable(options.envFile, KIND_VARIABLES.playAgent),
        },
        legacyWorkerIds,
      });
    } finally {
      for (const database of targets) await database.close();
    }
    result.checklist.push({
      item: 'legacy databases unchanged (rollback: start the old containers)',
      ok: true,
      detail: 'fingerprints equal to the backup',
    });
    for (const item of result.checklist) out(`  [${item.ok ? 'ok' : 'FAILED'}] ${item.item}: ${item.detail}`);
    if (result.checklist.some((item) => !item.ok))
      throw new CopyError('the checklist failed: keep the legacy deployment');
    out(
      '7. next: start the standalone (it applies any further migrations), check both built-in nodes ONLINE with these ids,',
    );
    out(
      '   file browsing, upload, download, sync, scraping and drives; remove the old containers only after that.',
    );
    return result;
  } finally {
    if (backupTaken) {
      await writeJson(path.join(options.backupDir, BACKUP_FILES.report), {
        kind: 'legacy-to-standalone',
        finishedAt: new Date().toISOString(),
        ...result,
      }).catch(() => undefined);
    }
    release();
  }
}
