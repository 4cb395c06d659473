import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEventType, ActivityMediaType } from '@svc/contracts';
import { runMigrations, type ServiceDatabase } from '../../../../src/platform/db/index.js';
import { ActivityLogRepository } from '../../../../src/services/user/activity/activity-log.repository.js';
import { ActivityRetentionRepository } from '../../../../src/services/user/reports/retention.repository.js';
import {
  reportRepositories,
  type EventFilter,
} from '../../../../src/services/user/reports/reports.repository.js';
import { timeRowsIn, type TimeRollupLevel } from '../../../../src/services/user/reports/time-rollup-sql.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { testBackends } from '../../../support/databases.js';
import { refDate, refHour } from './reference.js';
import { activityRow, legacyActivityRow } from './activity-row.js';
import { Random } from './report-fixtures.js';

/*
 * The time rollups (migration V008) against plain code: after the backfill, inserts (batches out of order,
 * retried, concurrent, touching the same hour again) and deletes (the retention task, part of an hour, a whole
 * hour) activity_hour and activity_day hold exactly the sums of the events the log holds, per Shanghai hour and
 * day as Intl computes them; and timeRowsIn() sums exactly to the events of any window, at either level.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const SEED = Number(process.env.REPORT_TEST_SEED ?? 20240306);
const MEDIA_TYPES: ActivityMediaType[] = ['movie', 'episode', 'audio', 'other'];
const USERS = [randomUUID(), randomUUID(), randomUUID()];
/** A Shanghai midnight (a month edge) in the middle of the generated events. */
const MIDNIGHT = Date.parse('2024-03-01T00:00:00.000+08:00');
const V008 = userMigrations.findIndex((migration) => migration.name === 'V008__activity_time_rollups');

interface Ev {
  eventId: string;
  t: number;
  userId: string;
  mediaType: ActivityMediaType;
  eventType: ActivityEventType;
  durationMs: number;
  bytes: number;
}

/** The start of the Shanghai hour and day of an instant, from Intl's calendar fields (not from arithmetic). */
const hourOf = (t: number) =>
  Date.parse(`${refDate(t)}T${String(refHour(t)).padStart(2, '0')}:00:00.000+08:00`);
const dayOf = (t: number) => Date.parse(`${refDate(t)}T00:00:00.000+08:00`);

/** A row of a rollup or of timeRowsIn as the drivers answer it (bigint columns may come as strings). */
interface RollupRow {
  at: Date;
  user_id: string;
  media_type: string;
  plays: string | number;
  watch_ms: string | number;
  bytes: string | number;
}

interface Sums {
  plays: number;
  watchMs: number;
  bytes: number;
  events: number;
}

const sumsOf = (event: Ev): Sums => ({
  plays: event.eventType === 'start' ? 1 : 0,
  watchMs: event.durationMs,
  bytes: event.bytes,
  events: 1,
});

/** Sums per key, as `[key, sums]` sorted by key. */
function sumBy<T>(items: readonly T[], key: (item: T) => string, sums: (item: T) => Sums): [string, Sums][] {
  const found = new Map<string, Sums>();
  for (const item of items) {
    const k = key(item);
    const add = sums(item);
    const row = found.get(k) ?? { plays: 0, watchMs: 0, bytes: 0, events: 0 };
    row.plays += add.plays;
    row.watchMs += add.watchMs;
    row.bytes += add.bytes;
    row.events += add.events;
    found.set(k, row);
  }
  return [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const inWindow = (filter: EventFilter) => (event: Ev) =>
  event.t >= filter.from.getTime() &&
  event.t < filter.to.getTime() &&
  (!filter.mediaType || event.mediaType === filter.mediaType) &&
  (!filter.userId || event.userId === filter.userId);

describe.each(testBackends())('time rollups on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let activity: ActivityLogRepository;
  const random = new Random(SEED);
  /** What the log holds, in plain code. */
  let log: Ev[] = [];

  const event = (t: number, overrides: Partial<Ev> = {}): Ev => ({
    eventId: randomUUID(),
    t,
    userId: random.pick(USERS),
    mediaType: random.pick(MEDIA_TYPES),
    eventType: random.pick<ActivityEventType>(['start', 'progress', 'progress', 'stop']),
    durationMs: random.int(0, 600_000),
    bytes: random.chance(0.2) ? 0 : random.int(0, 5_000_000_000),
    ...overrides,
  });
  const fields = (ev: Ev) => ({
    ...ev,
    sessionId: `s-${ev.userId.slice(0, 8)}-${Math.floor(ev.t / HOUR)}`,
    mediaId: `m-${ev.mediaType}`,
  });
  const row = (ev: Ev) => activityRow(fields(ev));
  const legacyRow = (ev: Ev) => legacyActivityRow(fields(ev));
  /** Stores a batch through the repository (ON CONFLICT (event_id) DO NOTHING) and mirrors it. */
  const insert = async (batch: readonly Ev[], before: 'before-V010' | 'current' = 'current') => {
    const inserted = await activity.insertMany(before === 'current' ? batch.map(row) : batch.map(legacyRow));
    const known = new Set(log.map((ev) => ev.eventId));
    const fresh = batch.filter((ev) => !known.has(ev.eventId) && known.add(ev.eventId));
    expect(inserted).toBe(fresh.length);
    log = [...log, ...fresh];
  };
  /** Random events in [from, to), a fifth of them right on an hour boundary or one millisecond off it. */
  const randomEvents = (count: number, from: number, to: number) =>
    Array.from({ length: count }, () => {
      let t = random.int(from, to - 1);
      if (random.chance(0.2)) t = Math.floor(t / HOUR) * HOUR + random.pick([-1, 0, 0, 1]);
      return event(t);
    });

  /** activity_hour and activity_day equal the plain-code sums of the log, and a fresh aggregate in SQL. */
  const expectRollupsExact = async () => {
    const stored = async (table: 'activity_hour' | 'activity_day', key: 'hour' | 'day') => {
      const result = await sql<
        RollupRow & { events: string | number }
      >`SELECT ${sql.ref(key)} AS at, user_id, media_type, plays, watch_ms, bytes, events FROM ${sql.table(table)}`.execute(
        database.db,
      );
      return result.rows
        .map((r): [string, Sums] => [
          `${new Date(r.at).toISOString()} ${r.user_id} ${r.media_type}`,
          {
            plays: Number(r.plays),
            watchMs: Number(r.watch_ms),
            bytes: Number(r.bytes),
            events: Number(r.events),
          },
        ])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    };
    const count = await sql<{ n: string | number }>`SELECT count(*) AS n FROM activity_log`.execute(
      database.db,
    );
    expect(Number(count.rows[0]!.n)).toBe(log.length);
    const key = (at: (t: number) => number) => (ev: Ev) =>
      `${new Date(at(ev.t)).toISOString()} ${ev.userId} ${ev.mediaType}`;
    const hours = await stored('activity_hour', 'hour');
    const days = await stored('activity_day', 'day');
    expect(hours).toEqual(sumBy(log, key(hourOf), sumsOf));
    expect(days).toEqual(sumBy(log, key(dayOf), sumsOf));
    // The same against a fresh aggregate of the log in SQL, both ways.
    const fresh = await sql<{ differences: string | number }>`
      WITH hours AS (
        SELECT date_bin('1 hour', occurred_at, timestamptz '2000-01-03 00:00:00+08') AS at, user_id, media_type,
               count(*) FILTER (WHERE event_type = 'start') AS plays, sum(duration_ms) AS watch_ms,
               sum(bytes_delta) AS bytes, count(*) AS events
        FROM activity_log GROUP BY 1, 2, 3
      ),
      days AS (
        SELECT date_bin('1 day', at, timestamptz '2000-01-03 00:00:00+08') AS at, user_id, media_type,
               sum(plays) AS plays, sum(watch_ms) AS watch_ms, sum(bytes) AS bytes, sum(events) AS events
        FROM hours GROUP BY 1, 2, 3
      ),
      stored_hours AS (SELECT hour AS at, user_id, media_type, plays, watch_ms, bytes, events FROM activity_hour),
      stored_days AS (SELECT day AS at, user_id, media_type, plays, watch_ms, bytes, events FROM activity_day)
      SELECT (SELECT count(*) FROM (TABLE hours EXCEPT ALL TABLE stored_hours) d)
           + (SELECT count(*) FROM (TABLE stored_hours EXCEPT ALL TABLE hours) d)
           + (SELECT count(*) FROM (TABLE days EXCEPT ALL TABLE stored_days) d)
           + (SELECT count(*) FROM (TABLE stored_days EXCEPT ALL TABLE days) d) AS differences
    `.execute(database.db);
    expect(Number(fresh.rows[0]!.differences)).toBe(0);
  };

  beforeAll(async () => {
    expect(V008).toBeGreaterThan(0);
    // The log exists before V008: its backfill must count it.
    database = await backend.open<UserDatabase>('svc_user', userMigrations.slice(0, V008));
    activity = new ActivityLogRepository(database.db);
    await insert(randomEvents(400, MIDNIGHT - 2 * DAY, MIDNIGHT + 2 * DAY), 'before-V010');
    await runMigrations(database, userMigrations);
  }, 120_000);

  afterAll(async () => {
    await backend.cleanup();
  });

  it('backfills the log that was there before the migration', async () => {
    expect(log.length).toBe(400);
    await expectRollupsExact();
  });

  it('stays exact through batches out of order, retried, concurrent and touching the same hour again', async () => {
    const later = randomEvents(300, MIDNIGHT - DAY, MIDNIGHT + 3 * DAY).sort((a, b) => b.t - a.t);
    await insert(later.slice(0, 150));
    await insert(later.slice(150));
    await expectRollupsExact();
    // Retried: the stored ones are left out and count once; a repeat within the batch too.
    const fresh = randomEvents(20, MIDNIGHT - 3 * HOUR, MIDNIGHT + 3 * HOUR);
    await insert([...later.slice(0, 30), ...fresh, fresh[0]!]);
    await expectRollupsExact();
    // The same hour, user and type twice more, with a start and without.
    const hour = MIDNIGHT + 5 * HOUR;
    const same = { userId: USERS[0]!, mediaType: 'movie' as const };
    await insert([event(hour + MINUTE, { ...same, eventType: 'start' }), event(hour + 2 * MINUTE, same)]);
    await insert([event(hour + HOUR - 1, { ...same, eventType: 'progress' })]);
    await expectRollupsExact();
    // Batches at once over the same keys, in opposite orders (on PostgreSQL on several connections).
    const shared = randomEvents(400, MIDNIGHT - 4 * HOUR, MIDNIGHT + 4 * HOUR);
    const batches = [0, 1, 2, 3].map((part) => shared.filter((_, index) => index % 4 === part));
    const results = await Promise.all(
      batches.map((batch, index) =>
        activity.insertMany((index % 2 === 0 ? batch : [...batch].reverse()).map(row)),
      ),
    );
    expect(results.reduce((sum, n) => sum + n, 0)).toBe(shared.length);
    log = [...log, ...shared];
    await expectRollupsExact();
  });

  it('stays exact through the retention task and deletes of part of an hour or a whole hour', async () => {
    const retention = new ActivityRetentionRepository(database.db);
    const cutoff = MIDNIGHT - DAY + 7 * HOUR + 17 * MINUTE;
    let deleted = 0;
    for (;;) {
      const chunk = await retention.deleteChunkBefore(new Date(cutoff), 37);
      deleted += chunk;
      if (chunk === 0) break;
    }
    const kept = log.filter((ev) => ev.t >= cutoff);
    expect(deleted).toBe(log.length - kept.length);
    expect(deleted).toBeGreaterThan(0);
    log = kept;
    await expectRollupsExact();

    // Part of an hour of one user: the hour's row keeps the rest.
    const busy = sumBy(log, (ev) => `${hourOf(ev.t)} ${ev.userId}`, sumsOf).find(
      ([, sums]) => sums.events >= 4,
    )!;
    const [hourText, userId] = busy[0].split(' ') as [string, string];
    const hour = Number(hourText);
    const from = hour + 10 * MINUTE;
    const to = hour + 40 * MINUTE;
    const part = (ev: Ev) => ev.userId === userId && ev.t >= from && ev.t < to;
    await sql`
      DELETE FROM activity_log
      WHERE user_id = ${userId} AND occurred_at >= ${new Date(from)} AND occurred_at < ${new Date(to)}
    `.execute(database.db);
    log = log.filter((ev) => !part(ev));
    expect(log.some((ev) => ev.userId === userId && hourOf(ev.t) === hour)).toBe(true);
    await expectRollupsExact();

    // A whole hour: its rows go, and the days lose its sums.
    const whole = MIDNIGHT + HOUR;
    expect(log.some((ev) => hourOf(ev.t) === whole)).toBe(true);
    await sql`
      DELETE FROM activity_log WHERE occurred_at >= ${new Date(whole)} AND occurred_at < ${new Date(whole + HOUR)}
    `.execute(database.db);
    log = log.filter((ev) => hourOf(ev.t) !== whole);
    await expectRollupsExact();
  });

  it('gives rows that sum exactly to any window, per hour and per day, with every filter', async () => {
    const reports = reportRepositories(database.db, backend.label);
    const windows: [number, number][] = [
      [MIDNIGHT - DAY, MIDNIGHT + DAY], // whole days
      [MIDNIGHT, MIDNIGHT + 3 * DAY], // whole days to the end of the log
      [MIDNIGHT - 90 * MINUTE + 1, MIDNIGHT + 2 * DAY + 37 * MINUTE], // partial hours at both edges
      [MIDNIGHT - DAY + 3 * HOUR, MIDNIGHT + 5 * HOUR], // whole hours, no whole day at the start
      [MIDNIGHT + 3 * HOUR + 5 * MINUTE, MIDNIGHT + 3 * HOUR + 50 * MINUTE], // inside one hour
      [MIDNIGHT - 30 * MINUTE, MIDNIGHT + 30 * MINUTE], // across one hour edge, no whole hour
      [MIDNIGHT - 1, MIDNIGHT + DAY + 1], // one millisecond beyond a whole day at each edge
      [MIDNIGHT + HOUR, MIDNIGHT + HOUR], // empty
    ];
    for (let index = 0; index < 30; index += 1) {
      const from = random.int(MIDNIGHT - 3 * DAY, MIDNIGHT + 3 * DAY);
      const snapped = random.chance(0.5) ? Math.floor(from / HOUR) * HOUR : from;
      windows.push([snapped, snapped + random.pick([random.int(1, 2 * HOUR), random.int(1, 4 * DAY), DAY])]);
    }
    for (const [from, to] of windows) {
      for (const mediaType of [undefined, random.pick(MEDIA_TYPES)]) {
        for (const userId of [undefined, random.pick(USERS)]) {
          const filter: EventFilter = { from: new Date(from), to: new Date(to), mediaType, userId };
          const events = log.filter(inWindow(filter));
          const label = `${new Date(from).toISOString()} → ${new Date(to).toISOString()} ${mediaType} ${userId}`;
          for (const [level, bucketOf] of [
            ['hour', hourOf],
            ['day', dayOf],
          ] as [TimeRollupLevel, (t: number) => number][]) {
            const result = await sql<RollupRow>`SELECT * FROM ${timeRowsIn(filter, level)} t`.execute(
              database.db,
            );
            // Every row lies at an hour start (day rows at a midnight) and in the bucket of its events: summed
            // per bucket, user and type the rows equal the events (which the rows do not count).
            const rows = result.rows.map((r) => ({ ...r, at: new Date(r.at).getTime() }));
            for (const r of rows) expect(hourOf(r.at), label).toBe(r.at);
            const actual = sumBy(
              rows,
              (r) => `${bucketOf(r.at)} ${r.user_id} ${r.media_type}`,
              (r) => ({
                plays: Number(r.plays),
                watchMs: Number(r.watch_ms),
                bytes: Number(r.bytes),
                events: 0,
              }),
            );
            const expected = sumBy(
              events,
              (ev) => `${bucketOf(ev.t)} ${ev.userId} ${ev.mediaType}`,
              (ev) => ({ ...sumsOf(ev), events: 0 }),
            );
            expect(actual, `${level} ${label}`).toEqual(expected);
          }
          const totals = await reports.timeSeries.windowTotals(database.db, filter);
          expect(totals, label).toEqual({
            users: new Set(events.map((ev) => ev.userId)).size,
            plays: events.filter((ev) => ev.eventType === 'start').length,
            watchMs: events.reduce((sum, ev) => sum + ev.durationMs, 0),
            bytes: events.reduce((sum, ev) => sum + ev.bytes, 0),
          });
        }
      }
    }
  });
});
