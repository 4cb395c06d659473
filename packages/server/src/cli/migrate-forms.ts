import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  dropExternalDatabase,
  SERVICE_DATABASE_NAMES,
  type ServiceDatabaseName,
} from '../platform/db/index.js';
import { createLogger } from '../platform/logger.js';
import { loadSettings, type Settings } from '../platform/settings.js';
import { claimSupervisorLock } from '../runtime/supervisor.js';
import { backupDatabasesAt, restoreBackup, takeBackup } from '../form-migration/backup.js';
import {
  databaseNameAt,
  describeServer,
  type DatabaseLocation,
} from '../form-migration/database-locations.js';
import { migrateToDistributed, PreconditionError } from '../form-migration/distributed.js';
import type { LegacyLayout } from '../form-migration/legacy-layout.js';
import { legacyPrecheck } from '../form-migration/legacy-precheck.js';
import { legacyPromote } from '../form-migration/legacy-promote.js';
import { BACKUP_FILES } from '../form-migration/migration-report.js';
import { SERVICE_MIGRATIONS, type FormCommand } from './migrate.js';

/** Exit codes: 0 done, 1 failed, 2 usage, 3 a precondition does not hold or a choice is required. */
export const EXIT = { ok: 0, failed: 1, usage: 2, precondition: 3 } as const;

class UsageError extends Error {}

const out = (line: string) => process.stdout.write(`${line}\n`);

function sourceLocation(settings: Settings): DatabaseLocation {
  return settings.dbMode === 'external'
    ? { mode: 'external', databaseUrl: settings.databaseUrl!, nameSuffix: settings.dbNameSuffix }
    : { mode: 'bundled', dataDir: settings.dataDir };
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** A URL from a flag or, better (kept out of the process list), from an environment variable. */
function urlOption(value: string | undefined, variable: string, flag: string): string {
  const url = value ?? process.env[variable];
  if (url === undefined || url.trim() === '') throw new UsageError(`${flag} (or ${variable}) is required`);
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError(`${flag} must be a postgres:// URL`);
  return url;
}

function suffixOption(value: string | undefined, flag: string): string {
  const suffix = value ?? '';
  if (!/^[a-z0-9_]{0,30}$/.test(suffix))
    throw new UsageError(`${flag} may hold only a-z, 0-9 and _ (at most 30)`);
  return suffix;
}

const STRING = { type: 'string' } as const;
const FLAG = { type: 'boolean', default: false } as const;

async function distributed(args: string[], settings: Settings): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'target-url': STRING,
      'target-suffix': STRING,
      'backup-dir': STRING,
      'config-url': STRING,
      'show-tokens': FLAG,
      check: FLAG,
    },
  });
  const logger = createLogger({
    level: settings.logLevel === 'info' ? 'warn' : settings.logLevel,
    component: 'migrate',
  });
  await migrateToDistributed({
    source: sourceLocation(settings),
    dataDir: settings.dataDir,
    cacheDirs: [settings.playAgent.vfsCacheDir, settings.playAgent.imageCacheDir],
    target: {
      databaseUrl: urlOption(values['target-url'], 'SVC_TARGET_DATABASE_URL', '--target-url'),
      nameSuffix: suffixOption(values['target-suffix'], '--target-suffix'),
    },
    backupDir: values.check ? '' : path.resolve(required(values['backup-dir'], '--backup-dir')),
    configUrl: values['config-url'],
    showTokens: values['show-tokens'],
    checkOnly: values.check,
    migrations: SERVICE_MIGRATIONS,
    logger,
    out,
  });
  return EXIT.ok;
}

async function distributedRollback(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'target-url': STRING, 'target-suffix': STRING, confirm: FLAG },
  });
  const databaseUrl = urlOption(values['target-url'], 'SVC_TARGET_DATABASE_URL', '--target-url');
  const suffix = suffixOption(values['target-suffix'], '--target-suffix');
  const location: DatabaseLocation = { mode: 'external', databaseUrl, nameSuffix: suffix };
  const names = SERVICE_DATABASE_NAMES.map((name) => databaseNameAt(location, name));
  if (!values.confirm) {
    throw new PreconditionError(
      `this drops ${names.join(', ')} on ${describeServer(databaseUrl)} (the copies made by svc migrate ` +
        'distributed; the standalone is not touched): stop the roles, then pass --confirm',
    );
  }
  for (const name of names) {
    await dropExternalDatabase(databaseUrl, name);
    out(`dropped ${name} on ${describeServer(databaseUrl)}`);
  }
  out('the standalone deployment can be started again as it was');
  return EXIT.ok;
}

async function backup(args: string[], settings: Settings): Promise<number> {
  const { values } = parseArgs({ args, options: { 'backup-dir': STRING } });
  const backupDir = path.resolve(required(values['backup-dir'], '--backup-dir'));
  const logger = createLogger({ level: 'warn', component: 'migrate' });
  const release = claimSupervisorLock(path.join(settings.dataDir, 'run'));
  try {
    const location = sourceLocation(settings);
    await takeBackup({
      kind: location.mode,
      databases: backupDatabasesAt(location, logger),
      folders: [
        {
          label: BACKUP_FILES.data,
          dir: settings.dataDir,
          exclude: [
            settings.playAgent.vfsCacheDir,
            settings.playAgent.imageCacheDir,
            path.join(settings.dataDir, 'run'),
          ],
        },
      ],
      backupDir,
      logger,
    });
  } finally {
    release();
  }
  out(
    `backup written to ${backupDir} (data folder${settings.dbMode === 'external' ? ', four pg_dump files' : ''}, table fingerprints)`,
  );
  return EXIT.ok;
}

async function restore(args: string[], settings: Settings): Promise<number> {
  const { values } = parseArgs({ args, options: { 'backup-dir': STRING, confirm: FLAG } });
  const backupDir = path.resolve(required(values['backup-dir'], '--backup-dir'));
  if (!values.confirm) {
    throw new PreconditionError(
      `this replaces the databases and data folder of ${settings.dataDir} with the backup ${backupDir} ` +
        '(the current entries are moved aside): stop the deployment, then pass --confirm',
    );
  }
  const release = claimSupervisorLock(path.join(settings.dataDir, 'run'));
  try {
    const restored = await restoreBackup({
      backupDir,
      dataDir: settings.dataDir,
      location: sourceLocation(settings),
      logger: createLogger({ level: 'warn', component: 'migrate' }),
    });
    out(
      `restored ${restored.restoredEntries.join(', ')} and ${restored.restoredDatabases.join(', ')}, equal to the backup`,
    );
    if (restored.movedAside) out(`the replaced entries are in ${restored.movedAside}`);
  } finally {
    release();
  }
  return EXIT.ok;
}

function legacyLayout(values: Record<string, string | boolean | undefined>): LegacyLayout {
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined);
  const databaseUrl = urlOption(text('legacy-url'), 'SVC_LEGACY_DATABASE_URL', '--legacy-url');
  const suffix = suffixOption(text('legacy-suffix'), '--legacy-suffix');
  const names = Object.fromEntries(
    SERVICE_DATABASE_NAMES.map((name) => [name, `${name}${suffix}`]),
  ) as Record<ServiceDatabaseName, string>;
  const storageName = text('legacy-storage-database');
  if (storageName !== undefined) names.yiyi_storage = storageName;
  const storageUrl = text('legacy-storage-url') ?? process.env.SVC_LEGACY_STORAGE_DATABASE_URL;
  const dir = (key: string) => (text(key) === undefined ? undefined : path.resolve(text(key)!));
  return {
    databaseUrl,
    storageDatabaseUrl: storageUrl ?? databaseUrl,
    names,
    storageDataDir: dir('legacy-storage-data'),
    vfsCacheDir: dir('legacy-vfs-cache'),
    imageCacheDir: dir('legacy-image-cache'),
  };
}

const LEGACY_OPTIONS = {
  'legacy-url': STRING,
  'legacy-suffix': STRING,
  'legacy-storage-database': STRING,
  'legacy-storage-url': STRING,
  'settings-file': STRING,
} as const;

async function legacyPrecheckCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: LEGACY_OPTIONS });
  const result = await legacyPrecheck({
    layout: legacyLayout(values),
    envFile: path.resolve(required(values['settings-file'], '--settings-file')),
    out,
  });
  return result.written === null ? EXIT.precondition : EXIT.ok;
}

async function legacyPromoteCommand(args: string[], settings: Settings): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...LEGACY_OPTIONS,
      'legacy-storage-data': STRING,
      'legacy-vfs-cache': STRING,
      'legacy-image-cache': STRING,
      'storage-node': STRING,
      'play-agent-node': STRING,
      'backup-dir': STRING,
      confirm: FLAG,
    },
  });
  await legacyPromote({
    layout: legacyLayout(values),
    target: sourceLocation(settings),
    targetDataDir: settings.dataDir,
    targetCacheDirs: { vfs: settings.playAgent.vfsCacheDir, image: settings.playAgent.imageCacheDir },
    storageNodeId: values['storage-node'],
    playAgentNodeId: values['play-agent-node'],
    confirm: values.confirm,
    backupDir: path.resolve(required(values['backup-dir'], '--backup-dir')),
    envFile: path.resolve(required(values['settings-file'], '--settings-file')),
    migrations: SERVICE_MIGRATIONS,
    logger: createLogger({ level: 'warn', component: 'migrate' }),
    out,
  });
  return EXIT.ok;
}

/** Runs one form migration subcommand; returns the exit code. */
export async function runFormMigration(command: FormCommand, args: string[]): Promise<number> {
  try {
    switch (command) {
      case 'distributed':
        return await distributed(args, loadSettings());
      case 'distributed-rollback':
        return await distributedRollback(args);
      case 'backup':
        return await backup(args, loadSettings());
      case 'restore':
        return await restore(args, loadSettings());
      case 'legacy-precheck':
        return await legacyPrecheckCommand(args);
      case 'legacy-promote':
        return await legacyPromoteCommand(args, loadSettings());
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`svc migrate ${command}: ${message}\n`);
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return EXIT.usage;
    }
    if (error instanceof PreconditionError) return EXIT.precondition;
    return EXIT.failed;
  }
}
