import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityMediaType, ReportGranularity } from '@svc/contracts';
import { runMigrations, type ServiceDatabase } from '../../../../src/platform/db/index.js';
import { ActivityLogRepository } from '../../../../src/services/user/activity/activity-log.repository.js';
import { ActivityRetentionRepository } from '../../../../src/services/user/reports/retention.repository.js';
import {
  reportRepositories,
  type ReportRepositories,
  type EventFilter,
} from '../../../../src/services/user/reports/reports.repository.js';
import type { UserDatabase } from '../../../../src/services/user/user.db.js';
import { userMigrations } from '../../../../src/services/user/migrations/index.js';
import { testBackends } from '../../../support/databases.js';
import { refBucket } from './reference.js';
import { activityRow, legacyActivityRow } from './activity-row.js';
import { Random } from './report-fixtures.js';

/*
 * The play spans (migration V009) against plain code, on dense, tie-heavy data: hundreds of sessions overlapping
 * within a few hours, events on whole minutes (many starts and ends at one instant, and on the windows' edges),
 * sessions with gaps of hours (some cross a window without an event in it), sessions mixing two media types.
 * After the backfill, inserts (out of order, concurrent) and deletes (the retention task, single events), the
 * stored levels equal a brute-force count, and the overview's peak and the concurrency rows of many random
 * windows equal a brute-force sweep.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const SEED = Number(process.env.REPORT_TEST_SEED ?? 20261126);
const MEDIA_TYPES: ActivityMediaType[] = ['movie', 'episode', 'audio', 'other'];
const VARIANTS = [undefined, ...MEDIA_TYPES] as const;
/** A Shanghai midnight. */
const BASE = Date.parse('2025-06-01T00:00:00.000+08:00');
const V009 = userMigrations.findIndex((migration) => migration.name === 'V009__activity_play_span');
const USER = randomUUID();

interface Ev {
  eventId: string;
  t: number;
  session: string;
  mediaType: ActivityMediaType;
}

type Span = [first: number, last: number];

/** Each session's [first, last] over the events of one variant (undefined = all) in [from, to). */
function spansOf(
  events: readonly Ev[],
  variant: ActivityMediaType | undefined,
  from = -Infinity,
  to = Infinity,
) {
  const spans = new Map<string, Span>();
  for (const ev of events) {
    if (ev.t < from || ev.t >= to || (variant && ev.mediaType !== variant)) continue;
    const span = spans.get(ev.session);
    if (!span) spans.set(ev.session, [ev.t, ev.t]);
    else spans.set(ev.session, [Math.min(span[0], ev.t), Math.max(span[1], ev.t)]);
  }
  return spans;
}

/** Sessions playing at t: first ≤ t ≤ last. */
const playingAt = (spans: readonly Span[], t: number) =>
  spans.filter(([first, last]) => first <= t && t <= last).length;

describe.each(testBackends())('play spans on $label', (backend) => {
  let database: ServiceDatabase<UserDatabase>;
  let activity: ActivityLogRepository;
  let reports: ReportRepositories;
  const random = new Random(SEED);
  let log: Ev[] = [];

  const fields = (ev: Ev) => ({ ...ev, userId: USER, sessionId: ev.session });
  const row = (ev: Ev) => activityRow(fields(ev));
  const legacyRow = (ev: Ev) => legacyActivityRow(fields(ev));

  /**
   * `count` sessions starting on whole minutes within `hours` hours after `from`: 1–6 events up to an hour
   * apart, a tenth with one more event hours later, a tenth mixing two media types.
   */
  const sessions = (count: number, from: number, hours: number): Ev[] => {
    const events: Ev[] = [];
    for (let n = 0; n < count; n += 1) {
      const session = `s-${randomUUID()}`;
      const start = from + random.int(0, hours * 60 - 1) * MINUTE;
      const types = random.chance(0.1)
        ? [random.pick(MEDIA_TYPES), random.pick(MEDIA_TYPES)]
        : [random.pick(MEDIA_TYPES)];
      const times = [
        start,
        ...Array.from({ length: random.int(0, 5) }, () => start + random.int(0, 60) * MINUTE),
      ];
      if (random.chance(0.1)) times.push(start + random.int(3, 10) * HOUR + random.int(0, 59) * MINUTE);
      for (const t of times)
        events.push({ eventId: randomUUID(), t, session, mediaType: random.pick(types) });
    }
    return events;
  };

  const insert = async (batch: readonly Ev[], before: 'before-V010' | 'current' = 'current') => {
    expect(await activity.insertMany(before === 'current' ? batch.map(row) : batch.map(legacyRow))).toBe(
      batch.length,
    );
    log = [...log, ...batch];
  };

  /** The stored spans and levels equal the spans of the log and a brute-force count at each first event. */
  const expectLevelsExact = async () => {
    const stored = await sql<{
      variant: string;
      session_id: string;
      first_at: Date;
      last_at: Date;
      level: number;
    }>`
      SELECT variant, session_id, first_at, last_at, level FROM activity_play_span
    `.execute(database.db);
    const actual = stored.rows
      .map(
        (r) =>
          `${r.variant} ${r.session_id} ${new Date(r.first_at).getTime()} ${new Date(r.last_at).getTime()} ${Number(r.level)}`,
      )
      .sort();
    const expected: string[] = [];
    for (const variant of VARIANTS) {
      const spans = spansOf(log, variant);
      const all = [...spans.values()];
      for (const [session, [first, last]] of spans)
        expected.push(`${variant ?? '*'} ${session} ${first} ${last} ${playingAt(all, first)}`);
    }
    expect(actual).toEqual(expected.sort());
  };

  /** The overview's peak and the concurrency rows of a window equal a sweep over its window-view spans. */
  const expectWindowExact = async (filter: EventFilter, granularity: ReportGranularity) => {
    const spans = [...spansOf(log, filter.mediaType, filter.from.getTime(), filter.to.getTime()).values()];
    const label = `${filter.from.toISOString()} – ${filter.to.toISOString()} ${filter.mediaType ?? '*'} ${granularity}`;
    const peak = Math.max(0, ...spans.map(([first]) => playingAt(spans, first)));
    const { current } = await reports.timeSeries.summary(filter, new Date(filter.from.getTime() - HOUR));
    expect(current.peakConcurrency, label).toBe(peak);

    const buckets = new Map<number, { starts: number; ends: number; peak: number | null }>();
    const bucketOf = (t: number) => {
      const key = refBucket(t, granularity);
      const found = buckets.get(key) ?? { starts: 0, ends: 0, peak: null };
      buckets.set(key, found);
      return found;
    };
    for (const [first, last] of spans) {
      const start = bucketOf(first);
      start.starts += 1;
      start.peak = Math.max(start.peak ?? 0, playingAt(spans, first));
      bucketOf(last).ends += 1;
    }
    const rows = await reports.timeSeries.concurrency(filter, granularity);
    expect(
      rows
        .map((r) => ({ bucket: r.bucket.getTime(), starts: r.starts, ends: r.ends, peak: r.peak }))
        .sort((a, b) => a.bucket - b.bucket),
      label,
    ).toEqual(
      [...buckets].map(([bucket, figures]) => ({ bucket, ...figures })).sort((a, b) => a.bucket - b.bucket),
    );
  };

  /** Random windows: edges on whole minutes (where events lie) or anywhere, from minutes to a day long. */
  const expectRandomWindowsExact = async (rounds: number) => {
    for (let round = 0; round < rounds; round += 1) {
      const onMinute = random.chance(0.6);
      const from = BASE - HOUR + (onMinute ? random.int(0, 20 * 60) * MINUTE : random.int(0, 20 * HOUR));
      const length = random.pick([
        random.int(1, 30) * MINUTE,
        random.int(1, 6) * HOUR,
        random.int(6, 24) * HOUR,
      ]);
      const to = from + (onMinute ? length : length + random.int(1, MINUTE - 1));
      await expectWindowExact(
        { from: new Date(from), to: new Date(to), mediaType: random.pick(VARIANTS) },
        random.pick<ReportGranularity>(['halfHour', 'hour', 'day']),
      );
    }
  };

  beforeAll(async () => {
    expect(V009).toBeGreaterThan(0);
    // The log exists before V009: its backfill must count it.
    database = await backend.open<UserDatabase>('svc_user', userMigrations.slice(0, V009));
    activity = new ActivityLogRepository(database.db);
    await insert(sessions(150, BASE, 6), 'before-V010');
    await runMigrations(database, userMigrations);
    reports = reportRepositories(database.db, database.backend);
  }, 120_000);

  afterAll(async () => {
    await backend.cleanup();
  });

  it('backfills the spans and levels of the log that was there before the migration', async () => {
    await expectLevelsExact();
    await expectRandomWindowsExact(15);
  });

  it('stays exact through inserts out of order and at once, and windows a session crosses without events', async () => {
    // Later events of known sessions, new sessions, and batches newest first.
    const more = sessions(150, BASE + 2 * HOUR, 8).sort((a, b) => b.t - a.t);
    const extended = log
      .slice(0, 40)
      .map((ev) => ({ ...ev, eventId: randomUUID(), t: ev.t + random.int(-90, 90) * MINUTE }));
    for (let start = 0; start < more.length; start += 37) await insert(more.slice(start, start + 37));
    await insert(extended);
    await expectLevelsExact();
    // Batches at once over overlapping times (on PostgreSQL on several connections: the lock serialises them).
    const shared = sessions(120, BASE + HOUR, 4);
    const parts = [0, 1, 2, 3].map((part) => shared.filter((_, index) => index % 4 === part));
    const counts = await Promise.all(parts.map((part) => activity.insertMany(part.map(row))));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(shared.length);
    log = [...log, ...shared];
    await expectLevelsExact();
    // A session playing across a window with no event inside it, and windows around it.
    const session = `s-${randomUUID()}`;
    await insert([
      { eventId: randomUUID(), t: BASE + 3 * HOUR, session, mediaType: 'movie' },
      { eventId: randomUUID(), t: BASE + 11 * HOUR, session, mediaType: 'movie' },
    ]);
    await expectLevelsExact();
    for (const [from, to] of [
      [BASE + 4 * HOUR, BASE + 5 * HOUR],
      [BASE + 3 * HOUR + 1, BASE + 11 * HOUR],
      [BASE + 3 * HOUR, BASE + 11 * HOUR + 1],
      [BASE + 2 * HOUR + 30 * MINUTE, BASE + 6 * HOUR],
    ] as const) {
      for (const mediaType of [undefined, 'movie'] as const)
        await expectWindowExact({ from: new Date(from), to: new Date(to), mediaType }, 'hour');
    }
    // Alone later on: the peak lies inside the window, where the stored levels count the crossing session too.
    const quiet = BASE + 30 * HOUR;
    const play = (t: number, name: string): Ev => ({
      eventId: randomUUID(),
      t,
      session: `${name}-${session}`,
      mediaType: 'movie',
    });
    await insert([
      play(quiet, 'gap'),
      play(quiet + 10 * HOUR, 'gap'),
      play(quiet + 3 * HOUR, 'a'),
      play(quiet + 4 * HOUR, 'a'),
      play(quiet + 3.5 * HOUR, 'b'),
      play(quiet + 5 * HOUR, 'b'),
    ]);
    for (const mediaType of [undefined, 'movie'] as const) {
      const window = { from: new Date(quiet + HOUR), to: new Date(quiet + 9 * HOUR), mediaType };
      await expectWindowExact(window, 'hour');
      expect((await reports.timeSeries.summary(window, new Date(quiet))).current.peakConcurrency).toBe(2);
    }
    await expectRandomWindowsExact(40);
  });

  it('stays exact through the retention task and deletes of single events', async () => {
    const retention = new ActivityRetentionRepository(database.db);
    const cutoff = BASE + 2 * HOUR + 7 * MINUTE;
    while ((await retention.deleteChunkBefore(new Date(cutoff), 29)) > 0);
    log = log.filter((ev) => ev.t >= cutoff);
    await expectLevelsExact();
    const doomed = new Set(Array.from({ length: 60 }, () => random.pick(log).eventId));
    await sql`DELETE FROM activity_log WHERE event_id IN (${sql.join([...doomed])})`.execute(database.db);
    log = log.filter((ev) => !doomed.has(ev.eventId));
    await expectLevelsExact();
    await expectRandomWindowsExact(30);
  });

  it('refuses a change of the log outside READ COMMITTED, where the lock would not show the last holder’s spans', async () => {
    const ev: Ev = {
      eventId: randomUUID(),
      t: BASE + 5 * HOUR,
      session: `s-${randomUUID()}`,
      mediaType: 'audio',
    };
    await expect(
      database.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute((trx) => trx.insertInto('activity_log').values(row(ev)).execute()),
    ).rejects.toThrow(/READ COMMITTED/);
    await expectLevelsExact();
  });
});
