import { openConfiguredDatabase } from '../runtime/configured-database.js';
import { createLogger } from '../platform/logger.js';
import { loadSettings } from '../platform/settings.js';
import { runMigrations, type Migration, type ServiceDatabaseName } from '../platform/db/index.js';
import { configMigrations } from '../services/config/migrations/index.js';
import { userMigrations } from '../services/user/migrations/index.js';
import { mediaMigrations } from '../services/media/migrations/index.js';
import { storageMigrations } from '../services/storage/migrations/index.js';

export const SERVICE_MIGRATIONS: Record<ServiceDatabaseName, readonly Migration[]> = {
  svc_config: configMigrations,
  svc_user: userMigrations,
  svc_media: mediaMigrations,
  yiyi_storage: storageMigrations,
};

/** The migrations between forms, as subcommands of `svc migrate` (docs/deployment.md). */
export const FORM_COMMANDS = [
  'distributed',
  'distributed-rollback',
  'backup',
  'restore',
  'legacy-precheck',
  'legacy-promote',
] as const;
export type FormCommand = (typeof FORM_COMMANDS)[number];

/**
 * `svc migrate [database...]`: brings the named (default: all) service databases up to date;
 * `svc migrate <form command> ...`: a migration between forms (no database is named like one).
 */
export async function runMigrate(names: string[]): Promise<void> {
  const [first, ...rest] = names;
  if ((FORM_COMMANDS as readonly string[]).includes(first ?? '')) {
    const { runFormMigration } = await import('./migrate-forms.js');
    process.exitCode = await runFormMigration(first as FormCommand, rest);
    return;
  }
  const settings = loadSettings();
  const logger = createLogger({ level: settings.logLevel, component: 'migrate' });
  const all = Object.keys(SERVICE_MIGRATIONS) as ServiceDatabaseName[];
  const unknown = names.filter((name) => !all.includes(name as ServiceDatabaseName));
  if (unknown.length > 0)
    throw new Error(`unknown database ${unknown.join(', ')} (known: ${all.join(', ')})`);
  const chosen = names.length > 0 ? (names as ServiceDatabaseName[]) : all;
  for (const name of chosen) {
    const database = await openConfiguredDatabase(settings, name, logger);
    try {
      const { applied } = await runMigrations(database, SERVICE_MIGRATIONS[name]);
      process.stdout.write(
        `${name}: ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`}\n`,
      );
    } finally {
      await database.close();
    }
  }
}
