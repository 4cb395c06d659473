import { sql, type Kysely, type RawBuilder } from 'kysely';
import type {
  ActivityMediaType,
  AccountRole,
  ReportGranularity,
  ReportPlatform,
  ReportSort,
} from '@svc/contracts';
import type { DatabaseBackend } from '../../../platform/db/index.js';
import type { UserDatabase } from '../user.db.js';
import { spanConcurrencySql, spanPeakSql } from './concurrency-sql.js';
import {
  bucketSql,
  eventsIn,
  platformSql,
  sessionFilter,
  sessionRowsIn,
  type EventFilter,
} from './report-sql.js';
import { eventRowsIn, timeRowsIn } from './time-rollup-sql.js';

export type { EventFilter } from './report-sql.js';

/** Figures of one period of the overview. */
export interface PeriodSummary {
  activeUsers: number;
  playCount: number;
  watchMs: number;
  bytes: number;
  peakConcurrency: number;
}

/** A window's totals from the time rollups (see windowTotals). */
export interface WindowTotals {
  users: number;
  plays: number;
  watchMs: number;
  bytes: number;
}

export interface TimelineRow {
  bucket: Date;
  activeUsers: number;
  playCount: number;
  watchMs: number;
  bytes: number;
}

/** The concurrency sweep per bucket: sessions starting and ending in it, the highest running count at a start. */
export interface ConcurrencyRow {
  bucket: Date;
  starts: number;
  ends: number;
  peak: number | null;
}

export interface HourRow {
  hour: Date;
  playCount: number;
  watchMs: number;
}

export interface Figures {
  playCount: number;
  watchMs: number;
  bytes: number;
  sessions: number;
}

export interface UserFigures extends Figures {
  userId: string;
  /** The account's name, or for a deleted account the name of its latest event in the window. */
  username: string;
  deleted: boolean;
  lastPlayedAt: Date;
}

export interface MediaFigures extends Figures {
  mediaId: string;
  mediaName: string;
  seriesName: string | null;
  mediaType: ActivityMediaType;
  users: number;
}

export interface InactiveUserRow {
  id: string;
  username: string;
  display_name: string;
  role: AccountRole;
  disabled: boolean;
  created_at: Date;
  last_played_at: Date | null;
}

export interface DistributionRow extends Figures {
  kind: 'client' | 'platform' | 'device';
  client: string | null;
  deviceName: string | null;
  platform: ReportPlatform | null;
  users: number;
}

export interface MediaInfo {
  mediaId: string;
  mediaName: string;
  seriesName: string | null;
  mediaType: ActivityMediaType;
}

/** Which events of a device drill-down count: one client (optionally one device of it) or one platform. */
export type DeviceSelector =
  { client: string; deviceName?: string | undefined } | { platform: ReportPlatform };

export interface UserPlayRow {
  session_id: string;
  media_id: string;
  media_name: string;
  series_name: string | null;
  media_type: ActivityMediaType;
  client: string;
  device_name: string;
  platform: ReportPlatform;
  play_method: string;
  started_at: Date;
  last_at: Date;
  watch_ms: number;
  bytes: number;
  position_sec: number | null;
  runtime_sec: number | null;
}

export interface UserAnalysisRows {
  hours: HourRow[];
  sessions: number;
  bytes: number;
  avgCompletionRate: number | null;
  mediaTypes: { mediaType: ActivityMediaType; playCount: number; watchMs: number }[];
  platforms: { platform: ReportPlatform; playCount: number; watchMs: number }[];
  recentPlays: UserPlayRow[];
  siteWatchMs: number;
}

export interface AccountInfo {
  id: string;
  username: string;
  display_name: string;
  role: AccountRole;
  disabled: boolean;
}

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

const SORT_COLUMNS: Record<ReportSort, string> = { watchMs: 'watch_ms', playCount: 'plays', bytes: 'bytes' };

/**
 * At most this many requests fan out over several connections at once; others run their queries one after the
 * other. A fanning request holds its first connection while it waits for the others, so an unbounded number
 * of them could take the whole pool (10) and wait for each other.
 */
const MAX_FAN_OUTS = 2;

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

/** Reads the reports from the activity log (docs/report.md). Every method is one consistent snapshot. */
export class ReportsRepository {
  private fanOuts = 0;

  constructor(
    private readonly db: Kysely<UserDatabase>,
    private readonly backend: DatabaseBackend,
  ) {}

  /** Settings of a report transaction: a memory budget, no JIT compilation, a time limit. */
  private settings(): string {
    // A month's hash aggregates fit in 64 MB. The embedded database keeps its WebAssembly memory once grown,
    // so it gets less. JIT compilation costs more than it saves on these short aggregates.
    const workMem = this.backend === 'postgres' ? '64MB' : '32MB';
    return [
      `SET LOCAL work_mem = '${workMem}'`,
      'SET LOCAL jit = off',
      "SET LOCAL statement_timeout = '60s'",
    ].join('; ');
  }

  /** Runs report queries in one read-only snapshot (repeatable read). */
  private read<T>(work: (db: Kysely<UserDatabase>) => Promise<T>): Promise<T> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        await sql.raw(this.settings()).execute(trx);
        return work(trx);
      });
  }

  /**
   * Runs independent report queries over one snapshot. On PostgreSQL each runs on its own connection (the first
   * transaction exports its snapshot, the others import it), so they use several cores and still see exactly
   * the same rows; the embedded database has one session and runs them one after the other.
   */
  private async readAll<T extends readonly unknown[]>(works: {
    [K in keyof T]: (db: Kysely<UserDatabase>) => Promise<T[K]>;
  }): Promise<T> {
    const list = works as readonly ((db: Kysely<UserDatabase>) => Promise<unknown>)[];
    if (this.backend !== 'postgres' || list.length < 2 || this.fanOuts >= MAX_FAN_OUTS) {
      return this.read(async (db) => {
        const results: unknown[] = [];
        for (const work of list) results.push(await work(db));
        return results as unknown as T;
      });
    }
    this.fanOuts += 1;
    try {
      return await this.fanOut(list);
    } finally {
      this.fanOuts -= 1;
    }
  }

  private fanOut<T>(list: readonly ((db: Kysely<UserDatabase>) => Promise<unknown>)[]): Promise<T> {
    return this.read(async (first) => {
      const exported = await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(first);
      const snapshot = exported.rows[0]!.id;
      if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
      const results = await Promise.all(
        list.map((work, index) =>
          index === 0
            ? work(first)
            : this.db
                .transaction()
                .setIsolationLevel('repeatable read')
                .setAccessMode('read only')
                .execute(async (trx) => {
                  await sql.raw(`SET TRANSACTION SNAPSHOT '${snapshot}'`).execute(trx);
                  await sql.raw(this.settings()).execute(trx);
                  return work(trx);
                }),
        ),
      );
      return results as unknown as T;
    });
  }

  /**
   * The overview's figures for the window [from, to) and the previous period [previousFrom, from), one query per
   * period (see period()), both over one snapshot.
   */
  async summary(
    filter: EventFilter,
    previousFrom: Date,
  ): Promise<{ current: PeriodSummary; previous: PeriodSummary }> {
    const previous: EventFilter = { ...filter, from: previousFrom, to: filter.from };
    const [current, before] = await this.readAll<[PeriodSummary, PeriodSummary]>([
      (db) => this.period(db, filter),
      (db) => this.period(db, previous),
    ]);
    return { current, previous: before };
  }

  /**
   * One period's cards: active users, plays, watch and bytes from the time rollups (windowTotals), and the peak
   * concurrency from the play spans (concurrency-sql.ts), or for one user's window by sweeping that user's
   * sessions (sessionPeak).
   */
  private async period(db: Kysely<UserDatabase>, filter: EventFilter): Promise<PeriodSummary> {
    const totals = await this.windowTotals(db, filter);
    const peak = filter.userId
      ? await this.sessionPeak(db, filter)
      : num((await spanPeakSql(filter).execute(db)).rows[0]?.peak);
    return {
      activeUsers: totals.users,
      playCount: totals.plays,
      watchMs: totals.watchMs,
      bytes: totals.bytes,
      peakConcurrency: peak,
    };
  }

  /**
   * The peak concurrency as a sweep over the window's sessions (sessionRowsIn): each session (session_id) plays
   * from its first to its last event in the window; +1 at the first, -1 at the last, ordered by time with +1
   * first at equal times; the peak is the highest running sum. Used where a user filter keeps the rows few.
   */
  private async sessionPeak(db: Kysely<UserDatabase>, filter: EventFilter): Promise<number> {
    const result = await sql<{ peak: number | null }>`
      WITH s AS (
        SELECT min(r.first_at) AS first_at, max(r.last_at) AS last_at FROM ${sessionRowsIn(filter)} r
        GROUP BY r.session_id
      )
      SELECT max(running) AS peak FROM (
        SELECT sum(d) OVER (ORDER BY t, d DESC ROWS UNBOUNDED PRECEDING) AS running
        FROM (SELECT first_at AS t, 1 AS d FROM s UNION ALL SELECT last_at AS t, -1 AS d FROM s) points
      ) sweep
    `.execute(db);
    return num(result.rows[0]?.peak);
  }

  /**
   * The window's distinct users, plays, watch and bytes from the time rollups (timeRowsIn at level day: whole
   * days, whole hours, and raw events only in the partial hours at the edges).
   */
  async windowTotals(db: Kysely<UserDatabase>, filter: EventFilter): Promise<WindowTotals> {
    const result = await sql<{
      users: number;
      plays: number | null;
      watch_ms: number | null;
      bytes: number | null;
    }>`
      SELECT count(*) AS users, sum(plays)::bigint AS plays, sum(watch_ms)::bigint AS watch_ms,
             sum(bytes)::bigint AS bytes
      FROM (
        SELECT t.user_id, sum(t.plays) AS plays, sum(t.watch_ms) AS watch_ms, sum(t.bytes) AS bytes
        FROM ${timeRowsIn(filter, 'day')} t
        GROUP BY t.user_id
      ) per_user
    `.execute(db);
    const row = result.rows[0];
    return {
      users: num(row?.users),
      plays: num(row?.plays),
      watchMs: num(row?.watch_ms),
      bytes: num(row?.bytes),
    };
  }

  /**
   * Per bucket: distinct users, plays, watch and bytes (buckets without events are absent). Hours read the hour
   * rollup, days, weeks and months the day rollup (both with raw events in the partial hours at the edges); half
   * hours, only for windows under a day, read the events.
   */
  async timeline(filter: EventFilter, granularity: ReportGranularity): Promise<TimelineRow[]> {
    const rows =
      granularity === 'halfHour'
        ? eventRowsIn(filter)
        : timeRowsIn(filter, granularity === 'hour' ? 'hour' : 'day');
    return this.read(async (db) => {
      const result = await sql<{
        bucket: Date;
        users: number;
        plays: number;
        watch_ms: number;
        bytes: number;
      }>`
        SELECT bucket, count(*) AS users, sum(plays)::bigint AS plays,
               sum(watch_ms)::bigint AS watch_ms, sum(bytes)::bigint AS bytes
        FROM (
          SELECT ${bucketSql(sql.ref('t.at'), granularity)} AS bucket, t.user_id, sum(t.plays) AS plays,
                 sum(t.watch_ms) AS watch_ms, sum(t.bytes) AS bytes
          FROM ${rows} t
          GROUP BY 1, t.user_id
        ) per_user
        GROUP BY bucket
      `.execute(db);
      return result.rows.map((row) => ({
        bucket: new Date(row.bucket),
        activeUsers: num(row.users),
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
        bytes: num(row.bytes),
      }));
    });
  }

  /**
   * Per bucket: the sessions starting and ending in it and the peak concurrency at its starts (see sessionPeak),
   * from the play spans, or for one user's window by sweeping that user's events.
   */
  async concurrency(filter: EventFilter, granularity: ReportGranularity): Promise<ConcurrencyRow[]> {
    return this.read(async (db) => {
      const query = filter.userId
        ? sql<{ bucket: Date; starts: number; ends: number; peak: number | null }>`
        WITH s AS (
          SELECT min(a.occurred_at) AS first_at, max(a.occurred_at) AS last_at
          FROM activity_log a
          WHERE ${eventsIn(filter)}
          GROUP BY a.session_id
        ),
        points AS (
          SELECT first_at AS t, 1 AS d FROM s
          UNION ALL
          SELECT last_at AS t, -1 AS d FROM s
        ),
        running AS (
          SELECT t, d, sum(d) OVER (ORDER BY t, d DESC ROWS UNBOUNDED PRECEDING) AS running FROM points
        )
        SELECT ${bucketSql(sql.ref('t'), granularity)} AS bucket,
               count(*) FILTER (WHERE d = 1) AS starts, count(*) FILTER (WHERE d = -1) AS ends,
               max(running) FILTER (WHERE d = 1) AS peak
        FROM running
        GROUP BY 1
      `
        : spanConcurrencySql(filter, granularity);
      const result = await query.execute(db);
      return result.rows.map((row) => ({
        bucket: new Date(row.bucket),
        starts: num(row.starts),
        ends: num(row.ends),
        peak: row.peak === null ? null : num(row.peak),
      }));
    });
  }

  /** Plays and watch per clock hour, from the hour rollup (hours without events are absent). */
  async hours(filter: EventFilter): Promise<HourRow[]> {
    return this.read(async (db) => {
      const result = await hourRows(db, filter);
      return result.rows.map((row) => ({
        hour: new Date(row.hour),
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
      }));
    });
  }

  /**
   * The user ranking: `limit` users by `sort` descending, then user id, from the sessions rollup. The ranking
   * needs one aggregate by user; the distinct sessions are counted afterwards for the ranked users only.
   */
  async topUsers(filter: EventFilter, sort: ReportSort, limit: number): Promise<UserFigures[]> {
    return this.read(async (db) => {
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
        SELECT per_user.*, ${this.nameOf(filter)}
        FROM per_user LEFT JOIN users u ON u.id = per_user.user_id
        ORDER BY ${sql.ref(`per_user.${SORT_COLUMNS[sort]}`)} DESC, per_user.user_id
      `.execute(db);
      return result.rows.map(toUserFigures);
    });
  }

  /**
   * The name columns of a user row: the account's name, or for a deleted account the name its latest event in
   * the window was stored with (one probe of the (user_id, occurred_at) index, only for deleted accounts).
   */
  private nameOf(filter: EventFilter): RawBuilder<unknown> {
    return sql`(u.id IS NULL) AS deleted,
      CASE WHEN u.id IS NOT NULL THEN u.username ELSE (
        SELECT e.username FROM activity_log e
        WHERE e.user_id = per_user.user_id AND ${eventsIn(filter, 'e')}
        ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1
      ) END AS username`;
  }

  /**
   * The item ranking: `limit` items by `sort` descending, then media id, from the sessions rollup; names from
   * each item's latest event. Distinct sessions and users are counted afterwards for the ranked items only.
   */
  async topMedia(filter: EventFilter, sort: ReportSort, limit: number): Promise<MediaFigures[]> {
    return this.read(async (db) => {
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
    return this.read(async (db) => {
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
   * Clients, platforms and devices (client + device name) with distinct users and sessions, plays, watch and
   * bytes, from the sessions rollup (which holds the platform). count(DISTINCT …) over the window's rows sorted
   * them once per grouping set; instead two queries over one snapshot (on PostgreSQL on two connections at once):
   * the rows hashed per (client, device, platform, user), then per set, each row counted as a session; and per
   * set the extra rows of the sessions with several (one that changed item, device, user agent or user midway),
   * subtracted here.
   */
  async distribution(filter: EventFilter): Promise<DistributionRow[]> {
    const [figures, repeats] = await this.readAll([
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
    return this.read(async (db) => {
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
        SELECT per_user.*, ${this.nameOf(filter)}
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

  /** One item's watchers in the window (one page by watch descending, then id) and the item as last seen. */
  async mediaWatchers(
    filter: EventFilter,
    mediaId: string,
    offset: number,
    limit: number,
  ): Promise<{ media: MediaInfo | null; rows: UserFigures[]; total: number }> {
    return this.read(async (db) => {
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
            SELECT a.user_id, a.session_id, count(*) FILTER (WHERE a.event_type = 'start') AS plays,
                   sum(a.duration_ms) AS watch_ms, sum(a.bytes_delta) AS bytes, max(a.occurred_at) AS last_at
            FROM activity_log a
            WHERE a.media_id = ${mediaId} AND ${eventsIn(filter)}
            GROUP BY a.user_id, a.session_id
          ) per_session
          GROUP BY user_id
          ORDER BY watch_ms DESC, user_id
          LIMIT ${limit} OFFSET ${offset}
        )
        SELECT per_user.*, ${this.nameOf(filter)}
        FROM per_user LEFT JOIN users u ON u.id = per_user.user_id
        ORDER BY per_user.watch_ms DESC, per_user.user_id
      `.execute(db);
      let total = num(result.rows[0]?.total);
      if (result.rows.length === 0 && offset > 0) {
        const counted = await sql<{ total: number }>`
          SELECT count(DISTINCT a.user_id) AS total FROM activity_log a
          WHERE a.media_id = ${mediaId} AND ${eventsIn(filter)}
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

  /** The account with that id, and (for a deleted account) the name of its latest event; null when neither. */
  async findUser(userId: string): Promise<{ account: AccountInfo | null; eventName: string | null } | null> {
    return this.read(async (db) => {
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
    const [hours, totals, completion, mediaTypes, platforms, recent, site] = await this.readAll([
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

/** Plays and watch per clock hour from the hour rollup (timeRowsIn at level hour). */
function hourRows(db: Kysely<UserDatabase>, filter: EventFilter) {
  return sql<{ hour: Date; plays: number; watch_ms: number }>`
    SELECT t.at AS hour, sum(t.plays)::bigint AS plays, sum(t.watch_ms)::bigint AS watch_ms
    FROM ${timeRowsIn(filter, 'hour')} t
    GROUP BY 1
  `.execute(db);
}

interface UserFiguresRow {
  user_id: string;
  username: string;
  deleted: boolean;
  sessions: number;
  plays: number;
  watch_ms: number;
  bytes: number;
  last_at: Date;
}

function toUserFigures(row: UserFiguresRow): UserFigures {
  return {
    userId: row.user_id,
    username: row.username,
    deleted: row.deleted,
    playCount: num(row.plays),
    watchMs: num(row.watch_ms),
    bytes: num(row.bytes),
    sessions: num(row.sessions),
    lastPlayedAt: new Date(row.last_at),
  };
}
