import { sql, type Kysely } from 'kysely';
import type { UserDatabase } from '../user.db.js';

/** Daily byte counters per user and scope ('total', 'node:<id>', 'endpoint:<id>'). */
export class TrafficUsageRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /** Adds bytes to each scope's counter of the day, atomically (concurrent reports all count). */
  async add(userId: string, scopeKeys: readonly string[], day: string, bytes: number): Promise<void> {
    if (scopeKeys.length === 0) return;
    await this.db
      .insertInto('user_traffic_daily')
      .values(scopeKeys.map((scopeKey) => ({ user_id: userId, scope_key: scopeKey, day, bytes })))
      .onConflict((conflict) =>
        conflict
          .columns(['user_id', 'scope_key', 'day'])
          .doUpdateSet({ bytes: sql<number>`user_traffic_daily.bytes + excluded.bytes` }),
      )
      .execute();
  }

  /** The counters of the given scopes from `fromDay` (inclusive, 'YYYY-MM-DD') on. */
  async since(
    userId: string,
    scopeKeys: readonly string[],
    fromDay: string,
  ): Promise<{ scopeKey: string; day: string; bytes: number }[]> {
    if (scopeKeys.length === 0) return [];
    const rows = await this.db
      .selectFrom('user_traffic_daily')
      .select(['scope_key', 'day', 'bytes'])
      .where('user_id', '=', userId)
      .where('scope_key', 'in', [...scopeKeys])
      .where('day', '>=', fromDay)
      .execute();
    return rows.map((row) => ({ scopeKey: row.scope_key, day: row.day, bytes: Number(row.bytes) }));
  }
}
