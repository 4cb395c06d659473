export {
  openServiceDatabase,
  dropExternalDatabase,
  SERVICE_DATABASE_NAMES,
  type AnyServiceDatabase,
  type DatabaseBackend,
  type DatabaseOptions,
  type Migration,
  type ServiceDatabase,
  type ServiceDatabaseName,
} from './database.js';
export { DatabaseError, MigrationError } from './errors.js';
export { runMigrations, MIGRATIONS_TABLE, MIGRATION_NAME_PATTERN } from './migrations.js';
export { withAdvisoryLock, advisoryLockKey } from './advisory-lock.js';
export { PGliteDialect, PGliteSession, type PGliteDialectConfig } from './pglite-dialect.js';
export { LOCK_FILE_NAME } from './lock-file.js';
