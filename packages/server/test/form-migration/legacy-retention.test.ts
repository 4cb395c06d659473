import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import { openAt, type DatabaseLocation } from '../../src/form-migration/database-locations.js';
import { carryLegacyRetention, LEGACY_RETENTION_DAYS } from '../../src/form-migration/legacy-retention.js';
import { systemClock } from '../../src/platform/cache/index.js';
import { dropExternalDatabase, runMigrations } from '../../src/platform/db/index.js';
import { SystemSettingsRepository } from '../../src/services/shared/system-settings.repository.js';
import { ACTIVITY_RETENTION_KEY } from '../../src/services/user/reports/retention.service.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { retentionShown } from '../support/retention-shown.js';

const databaseUrl = postgresTestUrl();
const logger = quietLogger();
const created: string[] = [];
afterAll(async () => {
  for (const name of created) await dropExternalDatabase(databaseUrl!, name);
});

/** A new install's svc_user: migrated, nothing stored. */
async function newInstall(): Promise<DatabaseLocation> {
  const location: DatabaseLocation = {
    mode: 'external',
    databaseUrl: databaseUrl!,
    nameSuffix: `_rt${randomBytes(4).toString('hex')}`,
  };
  const database = await openAt(location, 'svc_user', logger);
  created.push(database.databaseName);
  try {
    await runMigrations(database, SERVICE_MIGRATIONS.svc_user);
  } finally {
    await database.close();
  }
  return location;
}

async function store(location: DatabaseLocation, value: unknown): Promise<void> {
  const database = await openAt(location, 'svc_user', logger);
  try {
    await new SystemSettingsRepository(database.db).set(ACTIVITY_RETENTION_KEY, value, new Date());
  } finally {
    await database.close();
  }
}

async function carry(location: DatabaseLocation) {
  const database = await openAt(location, 'svc_user', logger);
  try {
    return await carryLegacyRetention(database.db, systemClock);
  } finally {
    await database.close();
  }
}

describe.skipIf(!databaseUrl)('activity-log retention across the legacy path', () => {
  it('a new install shows 90; the legacy path without a stored value shows 365', async () => {
    const location = await newInstall();
    expect(await retentionShown(location, logger)).toBe(90);
    expect(await carry(location)).toEqual({ days: LEGACY_RETENTION_DAYS, source: 'legacy-history' });
    expect(await retentionShown(location, logger)).toBe(365);
  });

  it('keeps a stored value; replaces one the console could not read', async () => {
    const location = await newInstall();
    await store(location, { days: 30 });
    expect(await carry(location)).toEqual({ days: 30, source: 'kept' });
    expect(await retentionShown(location, logger)).toBe(30);

    await store(location, { days: 3 }); // below the minimum: shown as the default, so not a stored choice
    expect(await retentionShown(location, logger)).toBe(90);
    expect(await carry(location)).toEqual({ days: 365, source: 'legacy-history' });
    expect(await retentionShown(location, logger)).toBe(365);
  });
});
