import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import {
  dropExternalDatabase,
  SERVICE_DATABASE_NAMES,
  type ServiceDatabaseName,
} from '../platform/db/index.js';
import type { Logger } from '../platform/logger.js';
import {
  databaseNameAt,
  describeServer,
  openAt,
  openExistingDatabase,
  type DatabaseLocation,
  type SourceDatabase,
} from './database-locations.js';
import { compareFingerprints, describeDifferences, fingerprintDatabase } from './fingerprint.js';
import { copyFolder, exists, folderIsEmpty } from './folder-copy.js';
import { BACKUP_FILES, readManifest, writeJson, type SourceManifest } from './migration-report.js';
import { dumpDatabase, restoreDatabase } from './pg-dump.js';

/** One database to back up: how to open it for reading, and where pg_dump finds it (servers only). */
export interface BackupDatabase {
  name: ServiceDatabaseName;
  open(): Promise<SourceDatabase>;
  dump?: { databaseUrl: string; databaseName: string };
}

/** One folder to back up into `<backup>/<label>/`, leaving out the excluded folders (caches, run/). */
export interface BackupFolder {
  label: string;
  dir: string;
  exclude: readonly string[];
}

export interface BackupOptions {
  kind: 'bundled' | 'external';
  databases: readonly BackupDatabase[];
  folders: readonly BackupFolder[];
  backupDir: string;
  logger: Logger;
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Refuses a backup folder that is not new or empty, or lies inside one of the folders to back up. */
export async function checkBackupDir(backupDir: string, folders: readonly string[]): Promise<void> {
  for (const folder of folders) {
    if (inside(path.resolve(backupDir), path.resolve(folder))) {
      throw new Error(`the backup folder ${backupDir} must not lie inside ${folder}, which it backs up`);
    }
  }
  if (!(await folderIsEmpty(backupDir))) throw new Error(`the backup folder ${backupDir} is not empty`);
}

/** The databases of a location as backup entries. */
export function backupDatabasesAt(location: DatabaseLocation, logger: Logger): BackupDatabase[] {
  return SERVICE_DATABASE_NAMES.map((name) => {
    const databaseName = databaseNameAt(location, name);
    return location.mode === 'external'
      ? {
          name,
          open: () => openExistingDatabase(location.databaseUrl, databaseName),
          dump: { databaseUrl: location.databaseUrl, databaseName },
        }
      : { name, open: () => openAt(location, name, logger) };
  });
}

/**
 * The full backup a migration starts with: the folders, one pg_dump per database on a server, and the
 * fingerprint of every database table by table (`source-fingerprints.json`), which later proves the source
 * untouched and the copy equal.
 */
export async function takeBackup(options: BackupOptions): Promise<SourceManifest> {
  await checkBackupDir(
    options.backupDir,
    options.folders.map((folder) => folder.dir),
  );
  await mkdir(options.backupDir, { recursive: true, mode: 0o700 });
  for (const folder of options.folders) {
    const copied = await copyFolder(folder.dir, path.join(options.backupDir, folder.label), folder.exclude);
    options.logger.info({ ...copied, from: folder.dir, to: options.backupDir }, 'folder backed up');
  }
  const manifest: SourceManifest = {
    kind: options.kind,
    takenAt: new Date().toISOString(),
    folders: Object.fromEntries(options.folders.map((folder) => [folder.label, path.resolve(folder.dir)])),
    databaseNames: {},
    servers: {},
    fingerprints: {},
  };
  if (options.databases.some((database) => database.dump)) {
    await mkdir(path.join(options.backupDir, BACKUP_FILES.dumps));
  }
  for (const entry of options.databases) {
    if (entry.dump) {
      await dumpDatabase(
        entry.dump.databaseUrl,
        entry.dump.databaseName,
        path.join(options.backupDir, BACKUP_FILES.dumps, `${entry.name}.dump`),
      );
      manifest.servers[entry.name] = describeServer(entry.dump.databaseUrl);
    }
    const database = await entry.open();
    try {
      manifest.databaseNames[entry.name] = database.databaseName;
      manifest.fingerprints[entry.name] = await fingerprintDatabase(database.db);
    } finally {
      await database.close();
    }
  }
  await writeJson(path.join(options.backupDir, BACKUP_FILES.fingerprints), manifest);
  return manifest;
}

const KEPT_IN_PLACE = new Set(['play-agent', 'run']);

export interface RestoreOptions {
  backupDir: string;
  dataDir: string;
  /** external: the server the databases are restored on (the backup's own). */
  location: DatabaseLocation;
  logger: Logger;
}

export interface RestoreResult {
  /** Where the entries of the data folder that the backup replaced were moved. */
  movedAside: string | undefined;
  restoredEntries: string[];
  restoredDatabases: ServiceDatabaseName[];
}

/**
 * Puts a backup back (the deployment must be stopped): every top-level entry of the backed-up data folder
 * (but play-agent/ and run/) replaces the current one, which is moved aside to `<data>.replaced-<time>/`; on a server, each database is
 * dropped, created again and restored from its dump. Then every database is fingerprinted and must equal the
 * backup's.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const manifest = await readManifest(options.backupDir);
  if (manifest.kind !== options.location.mode) {
    throw new Error(
      `the backup holds a ${manifest.kind} store but the settings name a ${options.location.mode} one`,
    );
  }
  if (manifest.folders[BACKUP_FILES.data] === undefined) {
    throw new Error(
      `${options.backupDir} holds no data folder: restore its dumps with pg_restore (docs/deployment.md)`,
    );
  }
  const saved = path.join(options.backupDir, BACKUP_FILES.data);
  // The play-agent caches (rebuilt by use, possibly volumes of their own) and run/ stay where they are.
  const entries = (await readdir(saved)).filter((entry) => !KEPT_IN_PLACE.has(entry));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const aside = `${path.resolve(options.dataDir)}.replaced-${stamp}`;
  let movedAside: string | undefined;
  await mkdir(options.dataDir, { recursive: true });
  for (const entry of entries) {
    const current = path.join(options.dataDir, entry);
    if (await exists(current)) {
      await mkdir(aside, { recursive: true });
      await rename(current, path.join(aside, entry));
      movedAside = aside;
    }
    await copyFolder(path.join(saved, entry), current);
  }

  const location = options.location;
  const restoredDatabases: ServiceDatabaseName[] = [];
  for (const name of SERVICE_DATABASE_NAMES) {
    const expected = manifest.fingerprints[name];
    if (!expected) continue;
    if (location.mode === 'external') {
      const databaseName = databaseNameAt(location, name);
      await dropExternalDatabase(location.databaseUrl, databaseName);
      const created = await openAt(location, name, options.logger);
      await created.close();
      await restoreDatabase(
        location.databaseUrl,
        databaseName,
        path.join(options.backupDir, BACKUP_FILES.dumps, `${name}.dump`),
      );
    }
    const database = await openAt(location, name, options.logger);
    try {
      const differences = compareFingerprints(expected, await fingerprintDatabase(database.db));
      if (differences.length > 0) {
        throw new Error(`the restore differs from the backup: ${describeDifferences(name, differences)}`);
      }
    } finally {
      await database.close();
    }
    restoredDatabases.push(name);
  }
  return { movedAside, restoredEntries: entries, restoredDatabases };
}
