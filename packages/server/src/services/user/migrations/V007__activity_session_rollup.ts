import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * The playback report's per-session rollup (docs/report.md "Sessions rollup"): one row per play session and
 * device (session, user, item, media type, client, device name, platform) with its first and last event and
 * its sums. Statement-level triggers keep it equal to the log in the same transaction as every insert and
 * delete, so a report computed from it still always equals the raw events. The platform patterns are frozen
 * here (REPORT_PLATFORM_PATTERNS of this release): changing them needs a new migration that replaces
 * activity_platform() and rebuilds the rollup. The backfill is one aggregate over the whole log (about a
 * minute per 10 million events on PostgreSQL) while the migration holds the table.
 */
export const activitySessionRollupMigration: Migration = {
  name: 'V007__activity_session_rollup',
  async up(db) {
    await sql`
      -- A single SELECT without FROM, so the planner inlines it. The case-insensitive matches are slow
      -- (tens of microseconds per row): callers classify distinct devices, not events, where they can.
      CREATE FUNCTION activity_platform(client text, device_name text, user_agent text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'tvos|apple ?tv|android ?tv|google ?tv|fire ?tv|bravia|tizen|webos|roku|shield' THEN 'tv'
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'android' THEN 'android'
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'iphone|ipad|ipod|ios' THEN 'ios'
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'windows' THEN 'windows'
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'macintosh|mac ?os' THEN 'macos'
          WHEN (client || ' ' || device_name || ' ' || user_agent) ~* 'linux|ubuntu|x11' THEN 'linux'
          ELSE 'other'
        END
      $fn$;

      CREATE TABLE activity_session (
        session_id text NOT NULL,
        user_id uuid NOT NULL,
        media_type text NOT NULL,
        media_id text NOT NULL,
        client text NOT NULL,
        device_name text NOT NULL,
        platform text NOT NULL,
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        plays bigint NOT NULL,
        watch_ms bigint NOT NULL,
        bytes bigint NOT NULL
      );

      -- The backfill: one aggregate over the whole log, with memory for its groups; indexes built after it.
      SET LOCAL work_mem = '256MB';
      INSERT INTO activity_session
      SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, kinds.platform,
             min(a.occurred_at), max(a.occurred_at), count(*) FILTER (WHERE a.event_type = 'start'),
             sum(a.duration_ms), sum(a.bytes_delta)
      FROM activity_log a
      JOIN (
        SELECT client, device_name, user_agent, activity_platform(client, device_name, user_agent) AS platform
        FROM (SELECT DISTINCT client, device_name, user_agent FROM activity_log) d
      ) kinds USING (client, device_name, user_agent)
      GROUP BY 1, 2, 3, 4, 5, 6, 7;
      ALTER TABLE activity_session ADD CONSTRAINT activity_session_key
        UNIQUE (session_id, user_id, media_type, media_id, client, device_name, platform);
      -- Rows wholly inside a window: a range of first_at. Rows crossing a window edge: the GiST range index.
      CREATE INDEX activity_session_first ON activity_session (first_at);
      CREATE INDEX activity_session_span ON activity_session USING gist (tstzrange(first_at, last_at, '[]'));
      RESET work_mem;

      -- New events merge into their rows; rows are locked in key order, so concurrent batches cannot deadlock.
      CREATE FUNCTION activity_session_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO activity_session AS s
        SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, kinds.platform,
               min(a.occurred_at), max(a.occurred_at), count(*) FILTER (WHERE a.event_type = 'start'),
               sum(a.duration_ms), sum(a.bytes_delta)
        FROM added a
        JOIN (
          SELECT client, device_name, user_agent, activity_platform(client, device_name, user_agent) AS platform
          FROM (SELECT DISTINCT client, device_name, user_agent FROM added) d
        ) kinds USING (client, device_name, user_agent)
        GROUP BY 1, 2, 3, 4, 5, 6, 7
        ORDER BY 1, 2, 3, 4, 5, 6, 7
        ON CONFLICT ON CONSTRAINT activity_session_key DO UPDATE SET
          first_at = least(s.first_at, excluded.first_at),
          last_at = greatest(s.last_at, excluded.last_at),
          plays = s.plays + excluded.plays,
          watch_ms = s.watch_ms + excluded.watch_ms,
          bytes = s.bytes + excluded.bytes;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER activity_session_add AFTER INSERT ON activity_log
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION activity_session_add();

      -- Deleted events: the rows they belonged to are recomputed from the events that remain.
      CREATE FUNCTION activity_session_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        CREATE TEMPORARY TABLE IF NOT EXISTS activity_session_touched (LIKE activity_session) ON COMMIT DROP;
        TRUNCATE activity_session_touched;
        INSERT INTO activity_session_touched (session_id, user_id, media_type, media_id, client, device_name,
                                              platform, first_at, last_at, plays, watch_ms, bytes)
        SELECT DISTINCT r.session_id, r.user_id, r.media_type, r.media_id, r.client, r.device_name,
               kinds.platform, now(), now(), 0, 0, 0
        FROM removed r
        JOIN (
          SELECT client, device_name, user_agent, activity_platform(client, device_name, user_agent) AS platform
          FROM (SELECT DISTINCT client, device_name, user_agent FROM removed) d
        ) kinds USING (client, device_name, user_agent);
        DELETE FROM activity_session s USING activity_session_touched t
        WHERE (s.session_id, s.user_id, s.media_type, s.media_id, s.client, s.device_name, s.platform)
            = (t.session_id, t.user_id, t.media_type, t.media_id, t.client, t.device_name, t.platform);
        INSERT INTO activity_session AS s
        SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, a.platform,
               min(a.occurred_at), max(a.occurred_at), count(*) FILTER (WHERE a.event_type = 'start'),
               sum(a.duration_ms), sum(a.bytes_delta)
        FROM (
          SELECT e.*, activity_platform(e.client, e.device_name, e.user_agent) AS platform
          FROM activity_log e
          WHERE e.session_id IN (SELECT session_id FROM activity_session_touched)
        ) a
        JOIN activity_session_touched t
          ON (a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, a.platform)
           = (t.session_id, t.user_id, t.media_type, t.media_id, t.client, t.device_name, t.platform)
        GROUP BY 1, 2, 3, 4, 5, 6, 7
        ORDER BY 1, 2, 3, 4, 5, 6, 7
        ON CONFLICT ON CONSTRAINT activity_session_key DO UPDATE SET
          first_at = least(s.first_at, excluded.first_at),
          last_at = greatest(s.last_at, excluded.last_at),
          plays = s.plays + excluded.plays,
          watch_ms = s.watch_ms + excluded.watch_ms,
          bytes = s.bytes + excluded.bytes;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER activity_session_remove AFTER DELETE ON activity_log
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION activity_session_remove();
    `.execute(db);
  },
};
