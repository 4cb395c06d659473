import { sql } from 'kysely';
import type { ActivityMediaType, ReportSort } from '@svc/contracts';
import type { ReportReader } from './report-reader.js';
import {
  nameOf,
  num,
  SORT_COLUMNS,
  toUserFigures,
  type InactiveUserRow,
  type MediaFigures,
  type MediaInfo,
  type UserFigures,
  type UserFiguresRow,
} from './report-rows.js';
import { eventsIn, sessionRowsIn, type EventFilter } from './report-sql.js';

/** The report's rankings and lists of users and items: top users and media, inactive users, an item's watchers. */
export class RankingsRepository {
  constructor(private readonly reader: ReportReader) {}

  /**
   * The user ranking: `limit` users by `sort` descending, then user id, from the sessions rollup. The ranking
   * needs one aggregate by user; the distinct sessions are counted afterwards for the ranked users only.
   */
  async topUsers(filter: EventFilter, sort: ReportSort, limit: number): Promise<UserFigures[]> {
    return this.reader.read(async (db) => {
      const result = await sql<UserFiguresRow>`
        WITH r AS MATERIALIZED ${sessionRowsIn(filter)},
        ranked AS (
          SELECT user_id, sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms,
                 sum(bytes)::bigint AS bytes, max(last_at) AS last_at
          FROM r
          GROUP BY user_id
          ORDER BY ${sql.ref(SORT_COLUMNS[sort])} DESC, user_id
          LIMIT ${limit}
        ),
        sessions AS (
          SELECT user_id, count(*) AS sessions
          FROM (SELECT DISTINCT user_id, session_id FROM r WHERE user_id IN (SELECT user_id FROM ranked)) d
          GROUP BY user_id
        ),
        per_user AS (
          SELECT ranked.*, sessions.sessions FROM ranked JOIN sessions USING (user_id)
        )
        SELECT per_user.*, ${nameOf(filter)}
        FROM per_user LEFT JOIN users u ON u.id = per_user.user_id
        ORDER BY ${sql.ref(`per_user.${SORT_COLUMNS[sort]}`)} DESC, per_user.user_id
      `.execute(db);
      return result.rows.map(toUserFigures);
    });
  }

  /**
   * The item ranking: `limit` items by `sort` descending, then media id, from the sessions rollup; names from
   * each item's latest event. Distinct sessions and users are counted afterwards for the ranked items only.
   */
  async topMedia(filter: EventFilter, sort: ReportSort, limit: number): Promise<MediaFigures[]> {
    return this.reader.read(async (db) => {
      const result = await sql<{
        media_id: string;
        sessions: number;
        users: number;
        plays: number;
        watch_ms: number;
        bytes: number;
        media_name: string;
        series_name: string | null;
        media_type: ActivityMediaType;
      }>`
        WITH r AS MATERIALIZED ${sessionRowsIn(filter)},
        ranked AS (
          SELECT media_id, sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms,
                 sum(bytes)::bigint AS bytes
          FROM r
          GROUP BY media_id
          ORDER BY ${sql.ref(SORT_COLUMNS[sort])} DESC, media_id COLLATE "C"
          LIMIT ${limit}
        ),
        audience AS (
          SELECT media_id, count(DISTINCT session_id) AS sessions, count(DISTINCT user_id) AS users
          FROM r WHERE media_id IN (SELECT media_id FROM ranked)
          GROUP BY media_id
        )
        SELECT ranked.*, audience.sessions, audience.users, latest.media_name, latest.series_name, latest.media_type
        FROM ranked
        JOIN audience USING (media_id)
        CROSS JOIN LATERAL (
          SELECT e.media_name, e.series_name, e.media_type FROM activity_log e
          WHERE e.media_id = ranked.media_id AND ${eventsIn(filter, 'e')}
          ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1
        ) latest
        ORDER BY ${sql.ref(`ranked.${SORT_COLUMNS[sort]}`)} DESC, ranked.media_id COLLATE "C"
      `.execute(db);
      return result.rows.map((row) => ({
        mediaId: row.media_id,
        mediaName: row.media_name,
        seriesName: row.series_name,
        mediaType: row.media_type,
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
        bytes: num(row.bytes),
        sessions: num(row.sessions),
        users: num(row.users),
      }));
    });
  }

  /** Accounts without an event in the window (filters apply), by lower-case name then id, one page. */
  async inactiveUsers(
    filter: EventFilter,
    offset: number,
    limit: number,
  ): Promise<{ rows: InactiveUserRow[]; total: number }> {
    return this.reader.read(async (db) => {
      const userOnly = filter.userId ? sql`AND u.id = ${filter.userId}` : sql``;
      const mediaOnly = filter.mediaType ? sql`AND e.media_type = ${filter.mediaType}` : sql``;
      const result = await sql<InactiveUserRow & { total: number }>`
        WITH inactive AS (
          SELECT u.id, u.username, u.display_name, u.role, u.disabled, u.created_at, count(*) OVER () AS total
          FROM users u
          WHERE NOT EXISTS (
            SELECT 1 FROM activity_log a WHERE a.user_id = u.id AND ${eventsIn({ ...filter, userId: undefined })}
          ) ${userOnly}
          ORDER BY lower(u.username) COLLATE "C", u.id
          LIMIT ${limit} OFFSET ${offset}
        )
        SELECT inactive.*, (
          SELECT e.occurred_at FROM activity_log e
          WHERE e.user_id = inactive.id AND e.occurred_at < ${filter.to} ${mediaOnly}
          ORDER BY e.occurred_at DESC LIMIT 1
        ) AS last_played_at
        FROM inactive
        ORDER BY lower(inactive.username) COLLATE "C", inactive.id
      `.execute(db);
      let total = num(result.rows[0]?.total);
      if (result.rows.length === 0 && offset > 0) {
        // A page past the end: count on its own.
        const counted = await sql<{ total: number }>`
          SELECT count(*) AS total FROM users u
          WHERE NOT EXISTS (
            SELECT 1 FROM activity_log a WHERE a.user_id = u.id AND ${eventsIn({ ...filter, userId: undefined })}
          ) ${userOnly}
        `.execute(db);
        total = num(counted.rows[0]?.total);
      }
      return {
        total,
        rows: result.rows.map(({ total: _total, ...row }) => ({
          ...row,
          created_at: new Date(row.created_at),
          last_played_at: row.last_played_at === null ? null : new Date(row.last_played_at),
        })),
      };
    });
  }

  /**
   * One item's watchers in the window (one page by watch descending, then id) and the item as last seen. The
   * figures come from the sessions rollup (a tenth of the events); reading the item's events through the
   * (media_id, occurred_at) index fetched every event of a popular item from the table's pages.
   */
  async mediaWatchers(
    filter: EventFilter,
    mediaId: string,
    offset: number,
    limit: number,
  ): Promise<{ media: MediaInfo | null; rows: UserFigures[]; total: number }> {
    return this.reader.read(async (db) => {
      const media = await sql<{
        media_name: string;
        series_name: string | null;
        media_type: ActivityMediaType;
      }>`
        SELECT e.media_name, e.series_name, e.media_type FROM activity_log e
        WHERE e.media_id = ${mediaId} AND ${eventsIn(filter, 'e')}
        ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1
      `.execute(db);
      const item = media.rows[0];
      if (!item) return { media: null, rows: [], total: 0 };
      const result = await sql<UserFiguresRow & { total: number }>`
        WITH per_user AS (
          SELECT user_id, count(*) AS sessions, sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms,
                 sum(bytes)::bigint AS bytes, max(last_at) AS last_at, count(*) OVER () AS total
          FROM (
            SELECT r.user_id, r.session_id, sum(r.plays) AS plays, sum(r.watch_ms) AS watch_ms,
                   sum(r.bytes) AS bytes, max(r.last_at) AS last_at
            FROM ${sessionRowsIn(filter)} r
            WHERE r.media_id = ${mediaId}
            GROUP BY r.user_id, r.session_id
          ) per_session
          GROUP BY user_id
          ORDER BY watch_ms DESC, user_id
          LIMIT ${limit} OFFSET ${offset}
        )
        SELECT per_user.*, ${nameOf(filter)}
        FROM per_user LEFT JOIN users u ON u.id = per_user.user_id
        ORDER BY per_user.watch_ms DESC, per_user.user_id
      `.execute(db);
      let total = num(result.rows[0]?.total);
      if (result.rows.length === 0 && offset > 0) {
        const counted = await sql<{ total: number }>`
          SELECT count(DISTINCT r.user_id) AS total FROM ${sessionRowsIn(filter)} r WHERE r.media_id = ${mediaId}
        `.execute(db);
        total = num(counted.rows[0]?.total);
      }
      return {
        media: {
          mediaId,
          mediaName: item.media_name,
          seriesName: item.series_name,
          mediaType: item.media_type,
        },
        rows: result.rows.map(toUserFigures),
        total,
      };
    });
  }

  /** Distinct accounts with an event of the item in the window. */
  async viewerCount(mediaId: string, filter: EventFilter): Promise<number> {
    return this.reader.read(async (db) => {
      const counted = await sql<{ viewers: number }>`
        SELECT count(DISTINCT a.user_id) AS viewers FROM activity_log a
        WHERE a.media_id = ${mediaId} AND ${eventsIn(filter)}
      `.execute(db);
      return num(counted.rows[0]?.viewers);
    });
  }
}
