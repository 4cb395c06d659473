import { openConfiguredDatabase } from './configured-database.js';
import {
  runMigrations,
  withAdvisoryLock,
  type Migration,
  type ServiceDatabase,
  type ServiceDatabaseName,
} from '../platform/db/index.js';
import { TaskScheduler } from '../platform/tasks/index.js';
import { startupStep } from '../platform/startup-progress.js';
import type { RuntimeContext } from './component.js';

/** Opens the database a service owns and brings its schema up to date before anything else runs. */
export async function openOwnedDatabase<DB>(
  context: RuntimeContext,
  name: ServiceDatabaseName,
  migrations: readonly Migration[],
): Promise<ServiceDatabase<DB>> {
  const { settings } = context;
  startupStep(`opening database ${name}`);
  const database = await openConfiguredDatabase<DB>(settings, name, context.logger);
  try {
    startupStep(`bringing database ${name} up to date`);
    const { applied } = await runMigrations(database, migrations);
    if (applied.length > 0) context.logger.info({ database: name, applied }, 'migrations applied');
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/**
 * A scheduler whose exclusive tasks take an advisory lock in the service's own database, so that
 * several instances of a role against one database run each task on one of them at a time.
 */
export function createScheduler<DB>(
  context: RuntimeContext,
  owner: string,
  database: ServiceDatabase<DB>,
): TaskScheduler {
  const scheduler = new TaskScheduler({
    logger: context.logger.child({ scheduler: owner }),
    lock: (taskName, fn) => withAdvisoryLock(database, `task:${taskName}`, fn),
  });
  context.schedulers.set(owner, scheduler);
  return scheduler;
}
