import { sql, type Kysely } from 'kysely';
import type { ActivityRow } from './activity-log.repository.js';
import type { UserDatabase } from '../user.db.js';

/** An active play session: its latest event, with the session's first event time and byte total. */
export interface ActiveSessionRow {
  latest: ActivityRow;
  startedAt: Date;
  bytes: number;
}

/** The play sessions going on now, read from the activity log (docs/activity-log.md). */
export class ActiveSessionsRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  /**
   * Play sessions whose latest event is a `start` or `progress` at or after `since` and that have no `stop`
   * event at all: newest session (by its first event) first, at most `limit`, with how many there are in all.
   * The time range is read through the occurred_at index; the aggregates of each candidate session (first
   * event, bytes, any stop) through the session_id index.
   */
  async activeSessions(since: Date, limit: number): Promise<{ rows: ActiveSessionRow[]; total: number }> {
    const found = await this.db
      .with('latest', (db) =>
        db
          .selectFrom('activity_log')
          .distinctOn('session_id')
          .selectAll()
          .where('occurred_at', '>=', since)
          .orderBy('session_id')
          .orderBy('occurred_at', 'desc')
          .orderBy('id', 'desc'),
      )
      .selectFrom('latest')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('activity_log as session')
            .whereRef('session.session_id', '=', 'latest.session_id')
            .select((agg) => [
              agg.fn.min('session.occurred_at').as('started_at'),
              agg.fn.sum<string | number>('session.bytes_delta').as('bytes'),
              agg.fn.countAll<string | number>().filterWhere('session.event_type', '=', 'stop').as('stops'),
            ])
            .as('totals'),
        (join) => join.onTrue(),
      )
      .where('latest.event_type', 'in', ['start', 'progress'])
      .where('totals.stops', '=', 0)
      .selectAll('latest')
      .select(['totals.started_at', 'totals.bytes', sql<string | number>`count(*) over ()`.as('total')])
      .orderBy('totals.started_at', 'desc')
      .orderBy('latest.session_id')
      .limit(limit)
      .execute();
    return {
      total: found.length === 0 ? 0 : Number(found[0]!.total),
      rows: found.map(({ started_at, bytes, total: _total, ...latest }) => ({
        latest,
        startedAt: new Date(started_at),
        bytes: Number(bytes ?? 0),
      })),
    };
  }
}
