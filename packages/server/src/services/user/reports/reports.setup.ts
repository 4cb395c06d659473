import { SHANGHAI_TIME_ZONE } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { ServiceDatabase } from '../../../platform/db/index.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import type { Logger } from '../../../platform/logger.js';
import type { TaskScheduler } from '../../../platform/tasks/index.js';
import type { UserDatabase } from '../user.db.js';
import { transactor, userRepositories } from '../user-repositories.js';
import { ReportsRepository } from './reports.repository.js';
import { registerReportRoutes } from './reports.routes.js';
import { ReportsService } from './reports.service.js';
import { ActivityRetentionRepository } from './retention.repository.js';
import { RetentionService } from './retention.service.js';

/** Name of the daily task that deletes activity events older than the retention. */
export const ACTIVITY_CLEANUP_TASK = 'activity-log.cleanup';

/** Wires the playback report into the user service: its routes and the retention task (docs/report.md). */
export function setupReports(parts: {
  app: AppServer;
  database: ServiceDatabase<UserDatabase>;
  scheduler: TaskScheduler;
  clock: Clock;
  logger: Logger;
}): { reports: ReportsService; retention: RetentionService } {
  const { db, backend } = parts.database;
  const repositories = userRepositories(db);
  const reports = new ReportsService(new ReportsRepository(db, backend), parts.clock);
  const retention = new RetentionService({
    accounts: repositories.accounts,
    settings: repositories.settings,
    retention: new ActivityRetentionRepository(db),
    transact: transactor(db),
    clock: parts.clock,
    logger: parts.logger,
  });
  registerReportRoutes(parts.app, { reports, retention });
  parts.scheduler.register({
    name: ACTIVITY_CLEANUP_TASK,
    // Daily at night, Shanghai time, when playback is quiet.
    schedule: { cron: '0 30 3 * * *', timezone: SHANGHAI_TIME_ZONE },
    run: async (signal) => {
      await retention.cleanup(signal);
    },
  });
  return { reports, retention };
}
