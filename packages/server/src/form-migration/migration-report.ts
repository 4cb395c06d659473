import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceDatabaseName } from '../platform/db/index.js';
import type { DatabaseFingerprint } from './fingerprint.js';

/** File names inside a migration's backup folder. */
export const BACKUP_FILES = {
  /** The source's databases, table by table, as they were when the backup was taken. */
  fingerprints: 'source-fingerprints.json',
  /** What the migration did (written at the end, also after a failure). */
  report: 'migration-report.json',
  /** The copied data folder. */
  data: 'data',
  /** pg_dump files, one per database (sources on a PostgreSQL server). */
  dumps: 'dumps',
} as const;

export interface SourceManifest {
  kind: 'bundled' | 'external';
  takenAt: string;
  /** Backed-up folders: label (the sub-folder of the backup) → the folder copied. */
  folders: Record<string, string>;
  /** Databases dumped with pg_dump: their server (no password). */
  servers: Partial<Record<ServiceDatabaseName, string>>;
  databaseNames: Partial<Record<ServiceDatabaseName, string>>;
  fingerprints: Partial<Record<ServiceDatabaseName, DatabaseFingerprint>>;
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

export async function readManifest(backupDir: string): Promise<SourceManifest> {
  const file = path.join(backupDir, BACKUP_FILES.fingerprints);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as SourceManifest;
  } catch (error) {
    throw new Error(
      `${file} is missing or unreadable: is ${backupDir} a backup made by svc migrate? (${String(error)})`,
    );
  }
}
