import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ActivityLogTable, UserDatabase } from '../user.db.js';

export type NewActivityRow = Insertable<ActivityLogTable>;
export type ActivityRow = Selectable<ActivityLogTable>;

/** The playback activity log (docs/activity-log.md). */
export class ActivityLogRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /** User names of the given users that exist, by id. */
  async usernames(userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('id', 'in', [...userIds])
      .execute();
    return new Map(rows.map((row) => [row.id, row.username]));
  }

  /**
   * Inserts the events in one statement; an event whose event_id is already stored (a retried batch, or a
   * repeat within the batch) is left out. Answers how many rows were inserted.
   */
  async insertMany(rows: readonly NewActivityRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const result = await this.db
      .insertInto('activity_log')
      .values([...rows])
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  /** A user's latest events, newest first. */
  async latest(userId: string, limit: number): Promise<ActivityRow[]> {
    return this.db
      .selectFrom('activity_log')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
