import { sql, type RawBuilder } from 'kysely';
import type { ActivityMediaType, ReportGranularity, ReportPlatform } from '@svc/contracts';

/** The events a report query counts: occurred_at in [from, to), optionally one media type and one user. */
export interface EventFilter {
  from: Date;
  to: Date;
  mediaType?: ActivityMediaType | undefined;
  userId?: string | undefined;
}

/** Monday 2000-01-03 00:00 in Shanghai: the origin of half-hour, hour, day and week buckets. */
const BUCKET_ORIGIN = sql.raw(`timestamptz '2000-01-03 00:00:00+08'`);
const STRIDES: Record<Exclude<ReportGranularity, 'month'>, string> = {
  halfHour: '30 minutes',
  hour: '1 hour',
  day: '1 day',
  week: '7 days',
};

/**
 * The start of the bucket holding a timestamptz, as a timestamptz. Half hours to weeks with date_bin on the instant
 * itself (Shanghai has no daylight saving, so a Shanghai day is 24 h from a Shanghai midnight); months with
 * date_trunc on the Shanghai wall-clock time.
 */
export function bucketSql(column: RawBuilder<unknown>, granularity: ReportGranularity): RawBuilder<Date> {
  if (granularity === 'month') {
    return sql<Date>`(date_trunc('month', ${column} AT TIME ZONE 'Asia/Shanghai') AT TIME ZONE 'Asia/Shanghai')`;
  }
  return sql<Date>`date_bin(${sql.raw(`interval '${STRIDES[granularity]}'`)}, ${column}, ${BUCKET_ORIGIN})`;
}

/**
 * The platform of an event of the activity_log alias `alias`: the database function activity_event_platform()
 * (migration V010: the column stored with the event, or for older events activity_platform() of V007), the
 * same one the sessions rollup uses.
 */
export function platformSql(alias: string): RawBuilder<ReportPlatform> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<ReportPlatform>`activity_event_platform(${column('platform')}, ${column('client')}, ${column('device_name')}, ${column('user_agent')})`;
}

/** The filter as a WHERE condition on the activity_log alias `alias`. */
export function eventsIn(filter: EventFilter, alias = 'a'): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const parts = [
    sql`${column('occurred_at')} >= ${filter.from}`,
    sql`${column('occurred_at')} < ${filter.to}`,
  ];
  if (filter.mediaType) parts.push(sql`${column('media_type')} = ${filter.mediaType}`);
  if (filter.userId) parts.push(sql`${column('user_id')} = ${filter.userId}`);
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

/** The media-type and user filters as a condition on the activity_session alias `s`. */
export function sessionFilter(filter: EventFilter): RawBuilder<boolean> {
  const parts = [sql`true`];
  if (filter.mediaType) parts.push(sql`s.media_type = ${filter.mediaType}`);
  if (filter.userId) parts.push(sql`s.user_id = ${filter.userId}`);
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * The window's events per sessions-rollup row (migration V007: one row per session, user, item, media type,
 * client, device name and platform), as a subquery with the columns session_id, user_id, media_type, media_id,
 * client, device_name, platform, first_at, last_at (first and last event in the window), plays, watch_ms, bytes.
 * A row whose events all lie in the window is taken as stored; a row crossing an edge of the window (found
 * through the GiST index on its span) is recomputed from its events inside the window. Either way the figures
 * equal those of the raw events, and a month reads about a fifth of the rows the events would be.
 */
export function sessionRowsIn(filter: EventFilter): RawBuilder<unknown> {
  const span = sql`tstzrange(s.first_at, s.last_at, '[]')`;
  return sql`(
    SELECT s.session_id, s.user_id, s.media_type, s.media_id, s.client, s.device_name, s.platform,
           s.first_at, s.last_at, s.plays, s.watch_ms, s.bytes
    FROM activity_session s
    WHERE s.first_at >= ${filter.from} AND s.first_at < ${filter.to} AND s.last_at < ${filter.to}
      AND ${sessionFilter(filter)}
    UNION ALL
    SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, edge.platform,
           min(a.occurred_at), max(a.occurred_at), count(*) FILTER (WHERE a.event_type = 'start'),
           sum(a.duration_ms), sum(a.bytes_delta)
    FROM (
      SELECT s.session_id, s.user_id, s.media_type, s.media_id, s.client, s.device_name, s.platform
      FROM activity_session s
      WHERE ((${span} @> ${filter.from}::timestamptz AND s.first_at < ${filter.from})
          OR (${span} @> ${filter.to}::timestamptz AND s.first_at < ${filter.to}))
        AND ${sessionFilter(filter)}
    ) edge
    -- OFFSET 0 keeps the planner to the session_id index (it would AND it with the item index: far slower).
    CROSS JOIN LATERAL (
      SELECT e.* FROM activity_log e WHERE e.session_id = edge.session_id AND ${eventsIn(filter, 'e')} OFFSET 0
    ) a
    WHERE a.user_id = edge.user_id AND a.media_type = edge.media_type AND a.media_id = edge.media_id
      AND a.client = edge.client AND a.device_name = edge.device_name AND ${platformSql('a')} = edge.platform
    GROUP BY 1, 2, 3, 4, 5, 6, 7
  )`;
}
