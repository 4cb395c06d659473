import { sql } from 'kysely';
import type { ReportPlatform } from '@svc/contracts';
import type { ReportReader } from './report-reader.js';
import {
  nameOf,
  num,
  toUserFigures,
  type DeviceSelector,
  type DistributionRow,
  type UserFigures,
  type UserFiguresRow,
} from './report-rows.js';
import { eventsIn, platformSql, sessionFilter, sessionRowsIn, type EventFilter } from './report-sql.js';

/** A row of distribution(): which grouping set (GROUPING() 0 = grouped by the column) and its key. */
interface DistributionSetRow {
  g_client: number;
  g_platform: number;
  g_device: number;
  client: string | null;
  platform: ReportPlatform | null;
  device_name: string | null;
}

interface DistributionFiguresRow extends DistributionSetRow {
  users: number;
  /** Rows of the sessions rollup: one per session, and one more per extra row of a session with several. */
  session_rows: number;
  plays: number;
  watch_ms: number;
  bytes: number;
}

const DISTRIBUTION_SETS = sql`GROUPING SETS ((client), (platform), (client, device_name))`;
const DISTRIBUTION_SET_COLUMNS = sql`GROUPING(client) AS g_client, GROUPING(platform) AS g_platform,
  GROUPING(device_name) AS g_device, client, platform, device_name`;

function distributionSetKey(row: DistributionSetRow): string {
  return JSON.stringify([
    num(row.g_client),
    num(row.g_platform),
    num(row.g_device),
    row.client,
    row.platform,
    row.device_name,
  ]);
}

/** The report's clients, platforms and devices, and the users of one of them (docs/report.md). */
export class DevicesRepository {
  constructor(private readonly reader: ReportReader) {}

  /**
   * Clients, platforms and devices (client + device name) with distinct users and sessions, plays, watch and
   * bytes, from the sessions rollup (which holds the platform). count(DISTINCT …) over the window's rows sorted
   * them once per grouping set; instead two queries over one snapshot (on PostgreSQL on two connections at once):
   * the rows hashed per (client, device, platform, user), then per set, each row counted as a session; and per
   * set the extra rows of the sessions with several (one that changed item, device, user agent or user midway),
   * subtracted here.
   */
  async distribution(filter: EventFilter): Promise<DistributionRow[]> {
    const [figures, repeats] = await this.reader.readAll([
      (db) =>
        sql<DistributionFiguresRow>`
        WITH per_user AS (
          SELECT r.client, r.device_name, r.platform, r.user_id, count(*) AS session_rows,
                 sum(r.plays::bigint) AS plays, sum(r.watch_ms::bigint) AS watch_ms, sum(r.bytes::bigint) AS bytes
          FROM ${sessionRowsIn(filter)} r
          GROUP BY r.client, r.device_name, r.platform, r.user_id
        )
        SELECT ${DISTRIBUTION_SET_COLUMNS}, count(DISTINCT user_id) AS users, sum(session_rows) AS session_rows,
               sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms, sum(bytes)::bigint AS bytes
        FROM per_user
        GROUP BY ${DISTRIBUTION_SETS}
      `.execute(db),
      (db) =>
        sql<DistributionSetRow & { repeats: number }>`
        WITH shared AS (
          -- Sessions with several rows meeting the window: starting in it or playing at its start (a superset
          -- of the rows sessionRowsIn gives, found without reading any event). One scan: as a UNION the planner
          -- misjudged the number of sessions and chose a parallel plan several times slower.
          SELECT s.session_id FROM activity_session s
          WHERE ((s.first_at >= ${filter.from} AND s.first_at < ${filter.to})
              OR (tstzrange(s.first_at, s.last_at, '[]') @> ${filter.from}::timestamptz
                  AND s.first_at < ${filter.from}))
            AND ${sessionFilter(filter)}
          GROUP BY s.session_id HAVING count(*) > 1
        )
        SELECT ${DISTRIBUTION_SET_COLUMNS}, count(*) - count(DISTINCT r.session_id) AS repeats
        FROM shared
        -- Their rows that sessionRowsIn gives: those with an event of their own in the window (rows inside it,
        -- and edge rows with events inside). OFFSET 0 keeps both lookups per session on the session_id indexes,
        -- whatever number of sessions the planner expects.
        CROSS JOIN LATERAL (
          SELECT s.session_id, s.client, s.device_name, s.platform
          FROM activity_session s
          WHERE s.session_id = shared.session_id
            AND EXISTS (
              SELECT FROM (
                SELECT e.* FROM activity_log e WHERE e.session_id = s.session_id AND ${eventsIn(filter, 'e')} OFFSET 0
              ) e
              WHERE e.user_id = s.user_id AND e.media_type = s.media_type AND e.media_id = s.media_id
                AND e.client = s.client AND e.device_name = s.device_name AND ${platformSql('e')} = s.platform
            )
          OFFSET 0
        ) r
        GROUP BY ${DISTRIBUTION_SETS}
      `.execute(db),
    ] as const);
    const repeated = new Map(repeats.rows.map((row) => [distributionSetKey(row), num(row.repeats)]));
    return figures.rows.map((row) => ({
      kind: num(row.g_device) === 0 ? 'device' : num(row.g_client) === 0 ? 'client' : 'platform',
      client: num(row.g_client) === 0 ? row.client : null,
      deviceName: num(row.g_device) === 0 ? row.device_name : null,
      platform: num(row.g_platform) === 0 ? row.platform : null,
      users: num(row.users),
      sessions: num(row.session_rows) - (repeated.get(distributionSetKey(row)) ?? 0),
      playCount: num(row.plays),
      watchMs: num(row.watch_ms),
      bytes: num(row.bytes),
    }));
  }

  /**
   * The users of a client (and device) or platform in the window, from the sessions rollup: one page by watch
   * descending, then id.
   */
  async deviceUsers(
    filter: EventFilter,
    selector: DeviceSelector,
    offset: number,
    limit: number,
  ): Promise<{ rows: UserFigures[]; total: number }> {
    const matching =
      'platform' in selector
        ? sql`r.platform = ${selector.platform}`
        : selector.deviceName !== undefined
          ? sql`r.client = ${selector.client} AND r.device_name = ${selector.deviceName}`
          : sql`r.client = ${selector.client}`;
    return this.reader.read(async (db) => {
      const result = await sql<UserFiguresRow & { total: number }>`
        WITH per_user AS (
          SELECT user_id, count(*) AS sessions, sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms,
                 sum(bytes)::bigint AS bytes, max(last_at) AS last_at, count(*) OVER () AS total
          FROM (
            SELECT r.user_id, r.session_id, sum(r.plays) AS plays, sum(r.watch_ms) AS watch_ms,
                   sum(r.bytes) AS bytes, max(r.last_at) AS last_at
            FROM ${sessionRowsIn(filter)} r
            WHERE ${matching}
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
          SELECT count(DISTINCT r.user_id) AS total FROM ${sessionRowsIn(filter)} r WHERE ${matching}
        `.execute(db);
        total = num(counted.rows[0]?.total);
      }
      return { rows: result.rows.map(toUserFigures), total };
    });
  }
}
