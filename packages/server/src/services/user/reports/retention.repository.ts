import { sql, type Kysely } from 'kysely';
import type { UserDatabase } from '../user.db.js';

/** Deletes old events of the activity log for the retention task. */
export class ActivityRetentionRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /**
   * Deletes at most `limit` events that occurred before `cutoff` (found through the occurred_at index) and
   * answers how many went.
   */
  async deleteChunkBefore(cutoff: Date, limit: number): Promise<number> {
    const result = await sql`
      DELETE FROM activity_log
      WHERE id IN (SELECT id FROM activity_log WHERE occurred_at < ${cutoff} LIMIT ${limit})
    `.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
