import { z } from 'zod';
import {
  ACTIVITY_RETENTION_DEFAULT_DAYS,
  ACTIVITY_RETENTION_MAX_DAYS,
  ACTIVITY_RETENTION_MIN_DAYS,
  ACTIVITY_RETENTION_SHORTCUTS,
  type ActivityRetentionResponse,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import { loadActor, type Actor } from '../accounts/actor.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { Port, Transactor } from '../user-repositories.js';
import { DAY_MS } from './report-time.js';
import type { ActivityRetentionRepository } from './retention.repository.js';

/** system_settings key of the activity log's retention, `{ days }`; absent or unreadable means the default. */
export const ACTIVITY_RETENTION_KEY = 'activity-log.retention';
/** Events deleted per statement by the cleanup task. */
export const CLEANUP_CHUNK = 10_000;

const storedSchema = z.object({
  days: z.number().int().min(ACTIVITY_RETENTION_MIN_DAYS).max(ACTIVITY_RETENTION_MAX_DAYS),
});

/** The days of a stored retention row, or undefined when absent or unreadable (then the default applies). */
export function storedRetentionDays(value: unknown): number | undefined {
  const parsed = storedSchema.safeParse(value);
  return parsed.success ? parsed.data.days : undefined;
}

export interface RetentionServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById'>;
  settings: Pick<Port<SystemSettingsRepository>, 'get'>;
  retention: Pick<Port<ActivityRetentionRepository>, 'deleteChunkBefore'>;
  transact: Transactor;
  clock: Clock;
  logger: Logger;
}

/** How long the activity log keeps events, and the daily cleanup that enforces it (docs/report.md). */
export class RetentionService {
  constructor(private readonly deps: RetentionServiceDeps) {}

  private async days(settings: Pick<Port<SystemSettingsRepository>, 'get'>): Promise<number> {
    return storedRetentionDays(await settings.get(ACTIVITY_RETENTION_KEY)) ?? ACTIVITY_RETENTION_DEFAULT_DAYS;
  }

  private answer(days: number): ActivityRetentionResponse {
    return {
      days,
      min: ACTIVITY_RETENTION_MIN_DAYS,
      max: ACTIVITY_RETENTION_MAX_DAYS,
      default: ACTIVITY_RETENTION_DEFAULT_DAYS,
      shortcuts: [...ACTIVITY_RETENTION_SHORTCUTS],
    };
  }

  /** The retention in force (read on every call). */
  async get(): Promise<ActivityRetentionResponse> {
    return this.answer(await this.days(this.deps.settings));
  }

  /**
   * Stores a new retention with the audit record `settings.activity-log-retention`. Deletes nothing: the next
   * cleanup run applies it.
   */
  async set(actor: Actor, days: number): Promise<ActivityRetentionResponse> {
    await loadActor(this.deps.accounts, actor);
    const now = new Date(this.deps.clock.now());
    await this.deps.transact(async (repositories) => {
      const before = await this.days(repositories.settings);
      await repositories.settings.set(ACTIVITY_RETENTION_KEY, { days }, now);
      await repositories.audit.insert(
        auditRecord(
          {
            actor: { userId: actor.identity.userId, username: actor.identity.username },
            action: 'settings.activity-log-retention',
            target: { type: 'setting', id: ACTIVITY_RETENTION_KEY },
            details: { before: { days: before }, after: { days } },
            clientIp: actor.clientIp,
          },
          now,
        ),
      );
    });
    return this.answer(days);
  }

  /**
   * The `activity-log.cleanup` task: deletes events older than the retention, a chunk at a time so no statement
   * runs long; a stop (the signal) ends it between chunks. Answers how many events were deleted.
   */
  async cleanup(signal?: AbortSignal): Promise<number> {
    const days = await this.days(this.deps.settings);
    const cutoff = new Date(this.deps.clock.now() - days * DAY_MS);
    let deleted = 0;
    for (;;) {
      const chunk = await this.deps.retention.deleteChunkBefore(cutoff, CLEANUP_CHUNK);
      deleted += chunk;
      if (chunk < CLEANUP_CHUNK || signal?.aborted) break;
    }
    if (deleted > 0) {
      this.deps.logger.info(
        { deleted, retentionDays: days, cutoff: cutoff.toISOString() },
        'activity log cleaned up',
      );
    }
    return deleted;
  }
}
