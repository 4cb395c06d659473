import type { Kysely } from 'kysely';
import { openAt, type DatabaseLocation } from '../../src/form-migration/database-locations.js';
import { systemClock } from '../../src/platform/cache/index.js';
import type { Logger } from '../../src/platform/logger.js';
import { ActivityRetentionRepository } from '../../src/services/user/reports/retention.repository.js';
import { RetentionService } from '../../src/services/user/reports/retention.service.js';
import { transactor, userRepositories } from '../../src/services/user/user-repositories.js';
import type { UserDatabase } from '../../src/services/user/user.db.js';

/**
 * The days the console's retention endpoint answers on an install's svc_user: the service that
 * GET /api/auth/admin/activity-log/retention serves, over that database.
 */
export async function retentionShown(location: DatabaseLocation, logger: Logger): Promise<number> {
  const database = await openAt(location, 'svc_user', logger);
  try {
    const db = database.db as Kysely<UserDatabase>;
    const repositories = userRepositories(db);
    const service = new RetentionService({
      accounts: repositories.accounts,
      settings: repositories.settings,
      retention: new ActivityRetentionRepository(db),
      transact: transactor(db),
      clock: systemClock,
      logger,
    });
    return (await service.get()).days;
  } finally {
    await database.close();
  }
}
