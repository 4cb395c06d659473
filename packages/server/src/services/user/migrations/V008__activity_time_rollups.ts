import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** The two time rollups: their table, key column and bucket stride (Shanghai hours and days). */
const ROLLUPS = [
  { table: 'activity_hour', key: 'hour', stride: '1 hour' },
  { table: 'activity_day', key: 'day', stride: '1 day' },
] as const;

type Rollup = (typeof ROLLUPS)[number];

const bucketOf = (rollup: Rollup, column: string) =>
  `date_bin('${rollup.stride}', ${column}, timestamptz '2000-01-03 00:00:00+08')`;

/** Adds (sign '') or subtracts (sign '-') the sums of the events of a transition table, in key order. */
function merge(rollup: Rollup, events: 'added' | 'removed', sign: '' | '-'): string {
  return `
    INSERT INTO ${rollup.table} AS r
    SELECT ${bucketOf(rollup, 'occurred_at')}, user_id, media_type,
           ${sign}count(*) FILTER (WHERE event_type = 'start'), ${sign}sum(duration_ms), ${sign}sum(bytes_delta),
           ${sign}count(*)
    FROM ${events}
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT (${rollup.key}, user_id, media_type) DO UPDATE SET
      plays = r.plays + excluded.plays,
      watch_ms = r.watch_ms + excluded.watch_ms,
      bytes = r.bytes + excluded.bytes,
      events = r.events + excluded.events;`;
}

/** Deletes the rows the removed events left without events. */
function prune(rollup: Rollup): string {
  return `
    DELETE FROM ${rollup.table} r
    USING (SELECT DISTINCT ${bucketOf(rollup, 'occurred_at')} AS at, user_id, media_type FROM removed) gone
    WHERE r.${rollup.key} = gone.at AND r.user_id = gone.user_id AND r.media_type = gone.media_type
      AND r.events = 0;`;
}

/**
 * The playback report's time rollups (docs/report.md "Time rollups"): per clock hour and per Shanghai day (the
 * instant of its midnight), user and media type the plays, watch time, bytes and number of events. Every figure
 * is a sum, so statement-level triggers add an inserted batch's sums and subtract a deleted batch's in the
 * writer's transaction, and the rollups always equal the log. Rows are merged in key order (hours, then days,
 * after the sessions rollup), so concurrent batches cannot deadlock; a row whose events reach 0 is deleted. The
 * log is never updated (only inserted into and deleted from): no UPDATE trigger.
 */
export const timeRollupMigration: Migration = {
  name: 'V008__activity_time_rollups',
  async up(db) {
    const tables = ROLLUPS.map(
      (rollup) => `
        CREATE TABLE ${rollup.table} (
          ${rollup.key} timestamptz NOT NULL,
          user_id uuid NOT NULL,
          media_type text NOT NULL,
          plays bigint NOT NULL,
          watch_ms bigint NOT NULL,
          bytes bigint NOT NULL,
          events bigint NOT NULL
        );`,
    ).join('\n');
    const [hour, day] = ROLLUPS;
    const keys = ROLLUPS.map(
      (rollup) => `
        ALTER TABLE ${rollup.table} ADD PRIMARY KEY (${rollup.key}, user_id, media_type);
        CREATE INDEX ${rollup.table}_user ON ${rollup.table} (user_id, ${rollup.key});`,
    ).join('\n');
    await sql
      .raw(
        `${tables}

        -- The backfill: hours from the log, days from the hours (an hour lies in one Shanghai day: UTC+8 is a
        -- whole number of hours); keys and indexes built after it.
        SET LOCAL work_mem = '256MB';
        INSERT INTO activity_hour
        SELECT ${bucketOf(hour, 'occurred_at')}, user_id, media_type,
               count(*) FILTER (WHERE event_type = 'start'), sum(duration_ms), sum(bytes_delta), count(*)
        FROM activity_log
        GROUP BY 1, 2, 3;
        INSERT INTO activity_day
        SELECT ${bucketOf(day, 'hour')}, user_id, media_type, sum(plays), sum(watch_ms), sum(bytes), sum(events)
        FROM activity_hour
        GROUP BY 1, 2, 3;
        ${keys}
        RESET work_mem;

        CREATE FUNCTION activity_time_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          ${ROLLUPS.map((rollup) => merge(rollup, 'added', '')).join('\n')}
          RETURN NULL;
        END
        $fn$;
        CREATE TRIGGER activity_time_add AFTER INSERT ON activity_log
          REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION activity_time_add();

        -- Deleted events: their sums are subtracted (an upsert of negated sums, for the key order), then the rows
        -- they leave without events are deleted.
        CREATE FUNCTION activity_time_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          ${ROLLUPS.map((rollup) => merge(rollup, 'removed', '-')).join('\n')}
          ${ROLLUPS.map(prune).join('\n')}
          RETURN NULL;
        END
        $fn$;
        CREATE TRIGGER activity_time_remove AFTER DELETE ON activity_log
          REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION activity_time_remove();`,
      )
      .execute(db);
  },
};
