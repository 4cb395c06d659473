import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * The report's platform becomes a column of the activity log, classified by the user service when an event is
 * stored (reports/platform.ts: a user-agent parser and the Emby/Jellyfin app names) instead of by the regular
 * expressions of activity_platform() (V007). Events stored before keep the platform that function gives them
 * (the column stays null, so the migration rewrites no row); activity_event_platform() is the one rule for both,
 * used by the sessions rollup's triggers and the report's queries alike, so the rollup stays equal to the log.
 */
/** A rollup row's figures from the events `a` of its key (the first seven columns). */
const SESSION_SUMS =
  sql.raw(`min(a.occurred_at), max(a.occurred_at), count(*) FILTER (WHERE a.event_type = 'start'),
  sum(a.duration_ms), sum(a.bytes_delta)`);

/**
 * Merges the aggregated events into their rollup rows (as in V007), in key order so concurrent batches cannot
 * deadlock: earliest first, latest last, sums added.
 */
const MERGE_INTO_SESSION = sql.raw(`GROUP BY 1, 2, 3, 4, 5, 6, 7
ORDER BY 1, 2, 3, 4, 5, 6, 7
ON CONFLICT ON CONSTRAINT activity_session_key DO UPDATE SET
  first_at = least(s.first_at, excluded.first_at),
  last_at = greatest(s.last_at, excluded.last_at),
  plays = s.plays + excluded.plays,
  watch_ms = s.watch_ms + excluded.watch_ms,
  bytes = s.bytes + excluded.bytes;`);

export const platformColumnMigration: Migration = {
  name: 'V010__activity_log_platform',
  async up(db) {
    await sql`
      ALTER TABLE activity_log ADD COLUMN platform text
        CHECK (platform IN ('tv', 'android', 'ios', 'windows', 'macos', 'linux', 'other'));

      CREATE FUNCTION activity_event_platform(platform text, client text, device_name text, user_agent text)
        RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT coalesce(platform, activity_platform(client, device_name, user_agent))
      $fn$;

      CREATE OR REPLACE FUNCTION activity_session_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO activity_session AS s
        SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name,
               activity_event_platform(a.platform, a.client, a.device_name, a.user_agent),
               ${SESSION_SUMS}
        FROM added a
        ${MERGE_INTO_SESSION}
        RETURN NULL;
      END
      $fn$;

      CREATE OR REPLACE FUNCTION activity_session_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        CREATE TEMPORARY TABLE IF NOT EXISTS activity_session_touched (LIKE activity_session) ON COMMIT DROP;
        TRUNCATE activity_session_touched;
        INSERT INTO activity_session_touched (session_id, user_id, media_type, media_id, client, device_name,
                                              platform, first_at, last_at, plays, watch_ms, bytes)
        SELECT DISTINCT r.session_id, r.user_id, r.media_type, r.media_id, r.client, r.device_name,
               activity_event_platform(r.platform, r.client, r.device_name, r.user_agent), now(), now(), 0, 0, 0
        FROM removed r;
        DELETE FROM activity_session s USING activity_session_touched t
        WHERE (s.session_id, s.user_id, s.media_type, s.media_id, s.client, s.device_name, s.platform)
            = (t.session_id, t.user_id, t.media_type, t.media_id, t.client, t.device_name, t.platform);
        INSERT INTO activity_session AS s
        SELECT a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, a.event_platform,
               ${SESSION_SUMS}
        FROM (
          SELECT e.*, activity_event_platform(e.platform, e.client, e.device_name, e.user_agent) AS event_platform
          FROM activity_log e
          WHERE e.session_id IN (SELECT session_id FROM activity_session_touched)
        ) a
        JOIN activity_session_touched t
          ON (a.session_id, a.user_id, a.media_type, a.media_id, a.client, a.device_name, a.event_platform)
           = (t.session_id, t.user_id, t.media_type, t.media_id, t.client, t.device_name, t.platform)
        ${MERGE_INTO_SESSION}
        RETURN NULL;
      END
      $fn$;
    `.execute(db);
  },
};
