import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * The playback report's concurrency index (docs/report.md "Play spans"): one row per session and variant ('*'
 * for all of a session's events, or one media type for its events of that type) with its first and last event
 * and its `level`, the number of sessions of that variant playing at its first event (itself, those starting at
 * the same instant and those ending at it included). A window's peak concurrency is then the highest level
 * inside it, corrected exactly near the window's edges (report-sql/concurrency-sql.ts).
 *
 * Statement-level triggers keep spans and levels equal to the log in the same transaction. Changing a span
 * changes the levels of the spans starting where it grew or shrank: those are recomputed by one sweep
 * (activity_play_span_relevel). Levels are not additive, so the triggers take one transaction-level advisory
 * lock and need READ COMMITTED (each statement then sees what the previous holder committed).
 */
export const playSpanMigration: Migration = {
  name: 'V009__activity_play_span',
  async up(db) {
    await sql`
      CREATE TABLE activity_play_span (
        variant text NOT NULL,
        session_id text NOT NULL,
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        level integer NOT NULL,
        PRIMARY KEY (variant, session_id)
      );

      -- The levels of the spans of variant v whose first event lies in [lo, hi]: one sweep over the starts in
      -- [lo, hi] and the ends in [lo, hi), from the spans already playing at lo. A start counts its peers (RANGE):
      -- every span starting at one instant gets the count after all of them started.
      CREATE FUNCTION activity_play_span_relevel(v text, lo timestamptz, hi timestamptz) RETURNS void
        LANGUAGE plpgsql AS $fn$
      DECLARE
        base bigint;
      BEGIN
        SELECT count(*) INTO base
        FROM activity_play_span every
        JOIN activity_play_span p ON p.variant = v AND p.session_id = every.session_id
        WHERE every.variant = '*' AND tstzrange(every.first_at, every.last_at, '[]') @> lo
          AND p.first_at < lo AND p.last_at >= lo;
        UPDATE activity_play_span p SET level = swept.level
        FROM (
          SELECT session_id, level FROM (
            SELECT session_id, d, base + sum(d) OVER (ORDER BY t, d DESC RANGE UNBOUNDED PRECEDING) AS level
            FROM (
              SELECT session_id, first_at AS t, 1 AS d FROM activity_play_span
              WHERE variant = v AND first_at >= lo AND first_at <= hi
              UNION ALL
              SELECT NULL, last_at, -1 FROM activity_play_span
              WHERE variant = v AND last_at >= lo AND last_at < hi
            ) points
          ) running
          WHERE d = 1
        ) swept
        WHERE p.variant = v AND p.session_id = swept.session_id AND p.level IS DISTINCT FROM swept.level;
      END
      $fn$;

      -- Applies the changes listed in activity_play_span_change (old and new first/last of each touched span;
      -- new NULL = gone) and recomputes the levels where spans grew or shrank, one merged range at a time.
      CREATE FUNCTION activity_play_span_settle() RETURNS void LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
      BEGIN
        DELETE FROM activity_play_span p USING activity_play_span_change c
        WHERE c.new_first IS NULL AND p.variant = c.variant AND p.session_id = c.session_id;
        INSERT INTO activity_play_span AS p (variant, session_id, first_at, last_at, level)
        SELECT variant, session_id, new_first, new_last, 0 FROM activity_play_span_change
        WHERE new_first IS NOT NULL
          AND (old_first IS DISTINCT FROM new_first OR old_last IS DISTINCT FROM new_last)
        ORDER BY variant, session_id
        ON CONFLICT (variant, session_id) DO UPDATE SET first_at = excluded.first_at, last_at = excluded.last_at;
        FOR r IN
          WITH ranges AS (
            -- a span that moved its first or last event changes the levels between the old and the new one
            SELECT variant, least(old_first, new_first) AS lo, greatest(old_first, new_first) AS hi
            FROM activity_play_span_change
            WHERE old_first IS NOT NULL AND new_first IS NOT NULL AND old_first <> new_first
            UNION ALL
            SELECT variant, least(old_last, new_last), greatest(old_last, new_last)
            FROM activity_play_span_change
            WHERE old_first IS NOT NULL AND new_first IS NOT NULL AND old_last <> new_last
            UNION ALL
            -- a new or vanished span changes the levels all along it
            SELECT variant, coalesce(old_first, new_first), coalesce(old_last, new_last)
            FROM activity_play_span_change WHERE old_first IS NULL OR new_first IS NULL
          ),
          marked AS (
            SELECT variant, lo, hi,
                   CASE WHEN lo <= max(hi) OVER (PARTITION BY variant ORDER BY lo, hi
                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                        THEN 0 ELSE 1 END AS opens
            FROM ranges
          ),
          islands AS (
            SELECT variant, lo, hi, sum(opens) OVER (PARTITION BY variant ORDER BY lo, hi) AS island FROM marked
          )
          SELECT variant, min(lo) AS lo, max(hi) AS hi FROM islands GROUP BY variant, island
        LOOP
          PERFORM activity_play_span_relevel(r.variant, r.lo, r.hi);
        END LOOP;
      END
      $fn$;

      CREATE FUNCTION activity_play_span_begin() RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RAISE EXCEPTION 'activity_log changes need READ COMMITTED (the play spans are kept under a lock)';
        END IF;
        PERFORM pg_advisory_xact_lock(7305119604471181311);
        CREATE TEMPORARY TABLE IF NOT EXISTS activity_play_span_change (
          variant text, session_id text, old_first timestamptz, old_last timestamptz,
          new_first timestamptz, new_last timestamptz
        ) ON COMMIT DROP;
        TRUNCATE activity_play_span_change;
      END
      $fn$;

      CREATE FUNCTION activity_play_span_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM activity_play_span_begin();
        INSERT INTO activity_play_span_change
        SELECT g.variant, g.session_id, p.first_at, p.last_at,
               least(p.first_at, g.first_at), greatest(p.last_at, g.last_at)
        FROM (
          SELECT v.variant, a.session_id, min(a.occurred_at) AS first_at, max(a.occurred_at) AS last_at
          FROM added a CROSS JOIN LATERAL (VALUES ('*'), (a.media_type)) v(variant)
          GROUP BY 1, 2
        ) g
        LEFT JOIN activity_play_span p ON p.variant = g.variant AND p.session_id = g.session_id;
        PERFORM activity_play_span_settle();
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER activity_play_span_add AFTER INSERT ON activity_log
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION activity_play_span_add();

      CREATE FUNCTION activity_play_span_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM activity_play_span_begin();
        INSERT INTO activity_play_span_change
        SELECT p.variant, p.session_id, p.first_at, p.last_at, remaining.first_at, remaining.last_at
        FROM (
          SELECT DISTINCT v.variant, r.session_id
          FROM removed r CROSS JOIN LATERAL (VALUES ('*'), (r.media_type)) v(variant)
        ) t
        JOIN activity_play_span p ON p.variant = t.variant AND p.session_id = t.session_id
        CROSS JOIN LATERAL (
          SELECT min(e.occurred_at) AS first_at, max(e.occurred_at) AS last_at FROM activity_log e
          WHERE e.session_id = t.session_id AND (t.variant = '*' OR e.media_type = t.variant)
        ) remaining;
        PERFORM activity_play_span_settle();
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER activity_play_span_remove AFTER DELETE ON activity_log
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION activity_play_span_remove();

      -- The backfill: the spans, their indexes, then the levels in one sweep per variant.
      SET LOCAL work_mem = '256MB';
      INSERT INTO activity_play_span
      SELECT v.variant, a.session_id, min(a.occurred_at), max(a.occurred_at), 0
      FROM activity_log a CROSS JOIN LATERAL (VALUES ('*'), (a.media_type)) v(variant)
      GROUP BY 1, 2;
      -- Windows read a range of first_at (with the level) or of last_at; spans crossing a window's edge are found
      -- through the sessions' '*' spans (a variant's span lies within its session's).
      CREATE INDEX activity_play_span_first ON activity_play_span (variant, first_at) INCLUDE (level);
      CREATE INDEX activity_play_span_last ON activity_play_span (variant, last_at) INCLUDE (first_at);
      CREATE INDEX activity_play_span_range ON activity_play_span
        USING gist (tstzrange(first_at, last_at, '[]')) WHERE variant = '*';
      SELECT activity_play_span_relevel(variant, '-infinity', 'infinity')
      FROM (SELECT DISTINCT variant FROM activity_play_span) variants;
      RESET work_mem;
    `.execute(db);
  },
};
