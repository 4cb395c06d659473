import { sql, type Kysely } from 'kysely';
import type { ReportGranularity } from '@svc/contracts';
import type { UserDatabase } from '../user.db.js';
import { spanConcurrencySql, spanPeakSql } from './concurrency-sql.js';
import type { ReportReader } from './report-reader.js';
import {
  hourRows,
  num,
  type ConcurrencyRow,
  type HourRow,
  type PeriodSummary,
  type TimelineRow,
  type WindowTotals,
} from './report-rows.js';
import { bucketSql, eventsIn, sessionRowsIn, type EventFilter } from './report-sql.js';
import { eventRowsIn, timeRowsIn } from './time-rollup-sql.js';

/** The report's cards and series over time: overview, timeline, concurrency, hours (docs/report.md). */
export class TimeSeriesRepository {
  constructor(private readonly reader: ReportReader) {}

  /**
   * The overview's figures for the window [from, to) and the previous period [previousFrom, from), one query per
   * period (see period()), both over one snapshot.
   */
  async summary(
    filter: EventFilter,
    previousFrom: Date,
  ): Promise<{ current: PeriodSummary; previous: PeriodSummary }> {
    const previous: EventFilter = { ...filter, from: previousFrom, to: filter.from };
    const [current, before] = await this.reader.readAll<[PeriodSummary, PeriodSummary]>([
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
   * hours, only for windows under a day, read the events. One aggregate per bucket with count(DISTINCT): its
   * small per-bucket sorts cost a fraction of a hash aggregate by bucket and user (a month of hours is ~270,000
   * such groups, each with numeric sums that a second aggregate then adds up).
   */
  async timeline(filter: EventFilter, granularity: ReportGranularity): Promise<TimelineRow[]> {
    const rows =
      granularity === 'halfHour'
        ? eventRowsIn(filter)
        : timeRowsIn(filter, granularity === 'hour' ? 'hour' : 'day');
    return this.reader.read(async (db) => {
      const result = await sql<{
        bucket: Date;
        users: number;
        plays: number;
        watch_ms: number;
        bytes: number;
      }>`
        SELECT ${bucketSql(sql.ref('t.at'), granularity)} AS bucket, count(DISTINCT t.user_id) AS users,
               sum(t.plays)::bigint AS plays, sum(t.watch_ms)::bigint AS watch_ms, sum(t.bytes)::bigint AS bytes
        FROM ${rows} t
        GROUP BY 1
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
    return this.reader.read(async (db) => {
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
    return this.reader.read(async (db) => {
      const result = await hourRows(db, filter);
      return result.rows.map((row) => ({
        hour: new Date(row.hour),
        playCount: num(row.plays),
        watchMs: num(row.watch_ms),
      }));
    });
  }
}
