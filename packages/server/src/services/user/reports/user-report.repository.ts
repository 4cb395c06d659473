import { sql } from 'kysely';
import type { ActivityMediaType, ReportPlatform } from '@svc/contracts';
import type { ReportReader } from './report-reader.js';
import { hourRows, num, type AccountInfo, type UserAnalysisRows, type UserPlayRow } from './report-rows.js';
import { eventsIn, platformSql, type EventFilter } from './report-sql.js';
import { timeRowsIn } from './time-rollup-sql.js';

/** One account's playback report (docs/report.md "One user"). */
export class UserReportRepository {
  constructor(private readonly reader: ReportReader) {}

  /** The account with that id, and (for a deleted account) the name of its latest event; null when neither. */
  async findUser(userId: string): Promise<{ account: AccountInfo | null; eventName: string | null } | null> {
    return this.reader.read(async (db) => {
      const account = await db
        .selectFrom('users')
        .select(['id', 'username', 'display_name', 'role', 'disabled'])
        .where('id', '=', userId)
        .executeTakeFirst();
      if (account) return { account, eventName: null };
      const latest = await db
        .selectFrom('activity_log')
        .select('username')
        .where('user_id', '=', userId)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return latest ? { account: null, eventName: latest.username } : null;
    });
  }

  /** Everything of the single-user analysis over [from, to), in one snapshot. */
  async userAnalysis(userId: string, from: Date, to: Date): Promise<UserAnalysisRows> {
    const filter: EventFilter = { from, to, userId };
    const [hours, totals, completion, mediaTypes, platforms, recent, site] = await this.reader.readAll([
      (db) => hourRows(db, filter),
      (db) =>
        sql<{ sessions: number; bytes: number | null }>`
        SELECT count(DISTINCT a.session_id) AS sessions, sum(a.bytes_delta)::bigint AS bytes
        FROM activity_log a WHERE ${eventsIn(filter)}
      `.execute(db),
      (db) =>
        sql<{ rate: number | null }>`
        SELECT avg(least(1.0, position_sec / runtime_sec)) AS rate
        FROM (
          SELECT DISTINCT ON (a.session_id) a.position_sec, a.runtime_sec
          FROM activity_log a WHERE ${eventsIn(filter)}
          ORDER BY a.session_id, a.occurred_at DESC, a.id DESC
        ) latest
        WHERE position_sec IS NOT NULL AND runtime_sec > 0
      `.execute(db),
      (db) =>
        sql<{ media_type: ActivityMediaType; plays: number; watch_ms: number }>`
        SELECT t.media_type, sum(t.plays)::bigint AS plays, sum(t.watch_ms)::bigint AS watch_ms
        FROM ${timeRowsIn(filter, 'day')} t GROUP BY t.media_type
      `.execute(db),
      (db) =>
        sql<{ platform: ReportPlatform; plays: number; watch_ms: number }>`
        SELECT ${platformSql('a')} AS platform, count(*) FILTER (WHERE a.event_type = 'start') AS plays,
               sum(a.duration_ms)::bigint AS watch_ms
        FROM activity_log a WHERE ${eventsIn(filter)} GROUP BY 1
      `.execute(db),
      (db) =>
        sql<UserPlayRow>`
        WITH sessions AS (
          SELECT a.session_id, min(a.occurred_at) AS started_at, max(a.occurred_at) AS last_at,
                 sum(a.duration_ms)::bigint AS watch_ms, sum(a.bytes_delta)::bigint AS bytes
          FROM activity_log a WHERE ${eventsIn(filter)}
          GROUP BY a.session_id
          ORDER BY started_at DESC, a.session_id COLLATE "C"
          LIMIT 50
        )
        SELECT sessions.*, latest.*
        FROM sessions
        CROSS JOIN LATERAL (
          SELECT e.media_id, e.media_name, e.series_name, e.media_type, e.client, e.device_name,
                 ${platformSql('e')} AS platform, e.play_method, e.position_sec, e.runtime_sec
          FROM activity_log e
          WHERE e.session_id = sessions.session_id AND ${eventsIn(filter, 'e')}
          ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1
        ) latest
        ORDER BY sessions.started_at DESC, sessions.session_id COLLATE "C"
      `.execute(db),
      (db) =>
        sql<{ watch_ms: number | null }>`
        SELECT sum(t.watch_ms)::bigint AS watch_ms FROM ${timeRowsIn({ from, to }, 'day')} t
      `.execute(db),
    ] as const);
    const rate = completion.rows[0]?.rate;
    return {
      hours: hours.rows.map((row) => ({
        hour: new Date(row.hour),
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
      })),
      sessions: num(totals.rows[0]?.sessions),
      bytes: num(totals.rows[0]?.bytes),
      avgCompletionRate: rate === null || rate === undefined ? null : Number(rate),
      mediaTypes: mediaTypes.rows.map((row) => ({
        mediaType: row.media_type,
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
      })),
      platforms: platforms.rows.map((row) => ({
        platform: row.platform,
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
      })),
      recentPlays: recent.rows.map((row) => ({
        ...row,
        started_at: new Date(row.started_at),
        last_at: new Date(row.last_at),
        watch_ms: num(row.watch_ms),
        bytes: num(row.bytes),
        position_sec: row.position_sec === null ? null : Number(row.position_sec),
        runtime_sec: row.runtime_sec === null ? null : Number(row.runtime_sec),
      })),
      siteWatchMs: num(site.rows[0]?.watch_ms),
    };
  }
}
