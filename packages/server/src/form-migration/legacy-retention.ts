import type { Kysely } from 'kysely';
import type { Clock } from '../platform/cache/index.js';
import { SystemSettingsRepository } from '../services/shared/system-settings.repository.js';
import { ACTIVITY_RETENTION_KEY, storedRetentionDays } from '../services/user/reports/retention.service.js';

/**
 * The activity-log retention the legacy line ended with: its migration V232 stored 90 days and V242 changed the
 * stored value to 365. A new install has no stored value and shows the endpoint default, 90.
 */
export const LEGACY_RETENTION_DAYS = 365;

export interface LegacyRetentionOutcome {
  days: number;
  /** `kept`: the imported database already stored a value; `legacy-history`: the V242 value was written. */
  source: 'kept' | 'legacy-history';
}

/**
 * After the import of svc_user: a valid stored retention (the operator's choice) is kept; without one (or with an
 * unreadable one, which the console would show as the default) the standalone stores the V242 value, so the console shows the retention the legacy install ran with.
 */
export async function carryLegacyRetention(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the standalone's svc_user, any service schema
  user: Kysely<any>,
  clock: Clock,
): Promise<LegacyRetentionOutcome> {
  const settings = new SystemSettingsRepository(user);
  const stored = storedRetentionDays(await settings.get(ACTIVITY_RETENTION_KEY));
  if (stored !== undefined) return { days: stored, source: 'kept' };
  await settings.set(ACTIVITY_RETENTION_KEY, { days: LEGACY_RETENTION_DAYS }, new Date(clock.now()));
  return { days: LEGACY_RETENTION_DAYS, source: 'legacy-history' };
}
