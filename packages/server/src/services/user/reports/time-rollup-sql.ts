import { DAY_MS, SHANGHAI_OFFSET_MS } from '@svc/contracts';
import { sql, type RawBuilder } from 'kysely';
import { bucketSql, eventsIn, type EventFilter } from './report-sql.js';

/**
 * The coarsest rollup a query may read: 'hour' (activity_hour) serves hour buckets; 'day' (activity_day, with
 * hours and raw events at the edges) serves day, week and month buckets, which are whole Shanghai days.
 */
export type TimeRollupLevel = 'hour' | 'day';

const HOUR_MS = 3_600_000;
// Shanghai is UTC+8 without daylight saving: its midnights are 16:00 UTC, its hours are the UTC hours.

const floorTo = (ms: number, unit: number, shift = 0) => Math.floor((ms + shift) / unit) * unit - shift;
const ceilTo = (ms: number, unit: number, shift = 0) => Math.ceil((ms + shift) / unit) * unit - shift;

/** The media-type and user filters on a rollup alias. */
function keyFilter(filter: EventFilter, alias: string): RawBuilder<boolean> {
  const parts = [sql`true`];
  if (filter.mediaType) parts.push(sql`${sql.ref(`${alias}.media_type`)} = ${filter.mediaType}`);
  if (filter.userId) parts.push(sql`${sql.ref(`${alias}.user_id`)} = ${filter.userId}`);
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

function rollupRows(
  table: 'activity_hour' | 'activity_day',
  filter: EventFilter,
  from: number,
  to: number,
): RawBuilder<unknown> {
  const at = sql.ref(`r.${table === 'activity_hour' ? 'hour' : 'day'}`);
  return sql`
    SELECT ${at} AS at, r.user_id, r.media_type, r.plays, r.watch_ms, r.bytes
    FROM ${sql.table(table)} r
    WHERE ${at} >= ${new Date(from)} AND ${at} < ${new Date(to)} AND ${keyFilter(filter, 'r')}`;
}

/** Raw events of [from, to) (inside one or two partial hours) per clock hour, user and media type. */
function eventRows(filter: EventFilter, from: number, to: number): RawBuilder<unknown> {
  return sql`
    SELECT ${bucketSql(sql.ref('a.occurred_at'), 'hour')} AS at, a.user_id, a.media_type,
           count(*) FILTER (WHERE a.event_type = 'start') AS plays, sum(a.duration_ms)::bigint AS watch_ms,
           sum(a.bytes_delta)::bigint AS bytes
    FROM activity_log a
    WHERE ${eventsIn({ ...filter, from: new Date(from), to: new Date(to) })}
    GROUP BY 1, 2, 3`;
}

/**
 * The window's events from the time rollups (migration V008), as a subquery with the columns at, user_id,
 * media_type, plays, watch_ms, bytes whose rows sum exactly to the window's raw events (filters applied): the
 * whole Shanghai days inside the window from activity_day (level 'day' only, `at` = the day's midnight), the
 * other whole clock hours from activity_hour (`at` = the hour), and the partial hours at the edges from the log
 * (grouped by hour, `at` = the hour). A row's `at` lies in the same hour (hour rows), or day (day rows), as its
 * events, so it buckets like them at the granularities its level serves; the raw events read are at most two
 * partial hours.
 */
export function timeRowsIn(filter: EventFilter, level: TimeRollupLevel): RawBuilder<unknown> {
  const from = filter.from.getTime();
  const to = filter.to.getTime();
  const parts: RawBuilder<unknown>[] = [];
  const hoursFrom = ceilTo(from, HOUR_MS);
  const hoursTo = floorTo(to, HOUR_MS);
  if (hoursFrom >= hoursTo) {
    // No whole hour inside (a window within one hour, or across one hour boundary): the events themselves.
    parts.push(eventRows(filter, from, to));
  } else {
    const daysFrom = ceilTo(from, DAY_MS, SHANGHAI_OFFSET_MS);
    const daysTo = floorTo(to, DAY_MS, SHANGHAI_OFFSET_MS);
    if (level === 'day' && daysFrom < daysTo) {
      parts.push(rollupRows('activity_day', filter, daysFrom, daysTo));
      if (hoursFrom < daysFrom) parts.push(rollupRows('activity_hour', filter, hoursFrom, daysFrom));
      if (daysTo < hoursTo) parts.push(rollupRows('activity_hour', filter, daysTo, hoursTo));
    } else {
      parts.push(rollupRows('activity_hour', filter, hoursFrom, hoursTo));
    }
    if (from < hoursFrom) parts.push(eventRows(filter, from, hoursFrom));
    if (hoursTo < to) parts.push(eventRows(filter, hoursTo, to));
  }
  return sql`(${sql.join(parts, sql` UNION ALL `)})`;
}

/** The window's events one row each, in the columns of timeRowsIn (`at` = the event's time): for half hours. */
export function eventRowsIn(filter: EventFilter): RawBuilder<unknown> {
  return sql`(
    SELECT a.occurred_at AS at, a.user_id, a.media_type, (a.event_type = 'start')::int AS plays,
           a.duration_ms AS watch_ms, a.bytes_delta AS bytes
    FROM activity_log a
    WHERE ${eventsIn(filter)}
  )`;
}
