import { SERVICE_DATABASE_NAMES, type ServiceDatabaseName } from '../platform/db/index.js';
import { describeServer, openExistingDatabase, type SourceDatabase } from './database-locations.js';

/**
 * A legacy multi-container install as the migration reads it: its four databases on PostgreSQL (the storage
 * node's possibly on its own server and under its own name) and the data folders of its containers.
 */
export interface LegacyLayout {
  /** The server of svc_config, svc_user, svc_media. */
  databaseUrl: string;
  /** The server of the storage node's database (default: databaseUrl). */
  storageDatabaseUrl: string;
  /** Real database names per service database (the storage one is imported into yiyi_storage). */
  names: Record<ServiceDatabaseName, string>;
  /** The storage node's data folder: sealed-credential key, upload spool, mount data (its db/ is not copied). */
  storageDataDir: string | undefined;
  /** The play-agent's video (VFS) cache folder. */
  vfsCacheDir: string | undefined;
  /** The play-agent's image cache folder. */
  imageCacheDir: string | undefined;
}

export function legacyServer(layout: LegacyLayout, name: ServiceDatabaseName): string {
  return name === 'yiyi_storage' ? layout.storageDatabaseUrl : layout.databaseUrl;
}

/** Opens one legacy database for reading (never creates it). */
export function openLegacy(layout: LegacyLayout, name: ServiceDatabaseName): Promise<SourceDatabase> {
  return openExistingDatabase(legacyServer(layout, name), layout.names[name]);
}

/** Opens the three control databases, runs work, closes them. */
export async function withLegacyControl<T>(
  layout: LegacyLayout,
  work: (dbs: { config: SourceDatabase; user: SourceDatabase; media: SourceDatabase }) => Promise<T>,
): Promise<T> {
  const opened: SourceDatabase[] = [];
  try {
    const open = async (name: ServiceDatabaseName) => {
      const database = await openLegacy(layout, name);
      opened.push(database);
      return database;
    };
    const config = await open('svc_config');
    const user = await open('svc_user');
    const media = await open('svc_media');
    return await work({ config, user, media });
  } finally {
    for (const database of opened) await database.close();
  }
}

export function describeLegacy(layout: LegacyLayout): string {
  return SERVICE_DATABASE_NAMES.map(
    (name) => `${layout.names[name]}@${describeServer(legacyServer(layout, name))}`,
  ).join(', ');
}
