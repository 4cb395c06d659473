import { sql } from 'kysely';
import type { Migration } from '../../platform/db/index.js';
import { libraryAccessMigration } from './library-access.migration.js';
import { systemSettingsMigration } from '../shared/system-settings.migration.js';
import { platformColumnMigration } from './reports/platform-column.migration.js';
import { playSpanMigration } from './reports/play-span.migration.js';
import { timeRollupMigration } from './reports/time-rollup.migration.js';

export const userMigrations: readonly Migration[] = [
  systemSettingsMigration('V001__system_settings'),
  {
    name: 'V002__accounts_tokens_audit',
    async up(db) {
      await sql`
        CREATE TABLE users (
          id uuid PRIMARY KEY,
          username text NOT NULL,
          display_name text NOT NULL,
          role text NOT NULL CHECK (role IN ('admin', 'user')),
          disabled boolean NOT NULL DEFAULT false,
          password_hash text NOT NULL,
          permissions jsonb NOT NULL DEFAULT '[]',
          web_playback boolean NOT NULL DEFAULT true,
          drive_a_play_mode text NOT NULL DEFAULT 'proxy' CHECK (drive_a_play_mode IN ('redirect', 'proxy')),
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX users_username_unique ON users (lower(username));
        CREATE INDEX users_role ON users (role) WHERE NOT disabled;

        CREATE TABLE auth_tokens (
          id uuid PRIMARY KEY,
          user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          kind text NOT NULL CHECK (kind IN ('admin', 'access')),
          token_hash text NOT NULL UNIQUE,
          created_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL,
          last_used_at timestamptz,
          revoked_at timestamptz
        );
        CREATE INDEX auth_tokens_user ON auth_tokens (user_id);
        CREATE INDEX auth_tokens_expiry ON auth_tokens (expires_at);

        CREATE TABLE audit_log (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          at timestamptz NOT NULL,
          actor_id text,
          actor_name text NOT NULL,
          action text NOT NULL,
          target_type text,
          target_id text,
          details jsonb NOT NULL DEFAULT '{}',
          client_ip text
        );
        CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
        CREATE INDEX audit_log_action ON audit_log (action, at DESC);
        CREATE INDEX audit_log_actor ON audit_log (actor_id, at DESC);
      `.execute(db);
    },
  },
  {
    name: 'V003__access_and_quotas',
    async up(db) {
      await sql`
        CREATE TABLE user_node_access (
          user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
          mode text NOT NULL CHECK (mode IN ('ALL', 'ALLOW_LIST', 'NONE')),
          entries jsonb NOT NULL DEFAULT '[]',
          updated_at timestamptz NOT NULL
        );

        CREATE TABLE user_quotas (
          user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          scope text NOT NULL CHECK (scope IN ('total', 'route')),
          target_kind text NOT NULL CHECK (target_kind IN ('', 'node', 'endpoint')),
          target_id text NOT NULL,
          enabled boolean NOT NULL,
          amount double precision NOT NULL CHECK (amount > 0 AND amount <= 1e9),
          unit text NOT NULL CHECK (unit IN ('MB', 'GB')),
          period text NOT NULL CHECK (period IN ('day', 'week', 'month')),
          PRIMARY KEY (user_id, scope, target_kind, target_id),
          CHECK ((scope = 'total') = (target_kind = '' AND target_id = ''))
        );

        CREATE TABLE user_traffic_daily (
          user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          scope_key text NOT NULL,
          day date NOT NULL,
          bytes bigint NOT NULL CHECK (bytes >= 0),
          PRIMARY KEY (user_id, scope_key, day)
        );
      `.execute(db);
    },
  },
  {
    // Playback clients sign in through a play-agent: a third token kind that remembers the device and the
    // node it signed in on, and the time of each account's last sign-in.
    name: 'V004__playback_tokens',
    async up(db) {
      await sql`
        ALTER TABLE auth_tokens DROP CONSTRAINT auth_tokens_kind_check;
        ALTER TABLE auth_tokens ADD CONSTRAINT auth_tokens_kind_check
          CHECK (kind IN ('admin', 'access', 'playback'));
        ALTER TABLE auth_tokens
          ADD COLUMN client text,
          ADD COLUMN device_name text,
          ADD COLUMN device_id text,
          ADD COLUMN client_version text,
          ADD COLUMN node_id text;
        ALTER TABLE users ADD COLUMN last_login_at timestamptz;
      `.execute(db);
    },
  },
  {
    // What players did, as the play-agents report it (docs/activity-log.md). No foreign key to users: the
    // history outlives a deleted account, which is why the user name is kept with every event.
    name: 'V005__activity_log',
    async up(db) {
      await sql`
        CREATE TABLE activity_log (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          event_id uuid NOT NULL UNIQUE,
          user_id uuid NOT NULL,
          username text NOT NULL,
          event_type text NOT NULL CHECK (event_type IN ('start', 'progress', 'stop')),
          occurred_at timestamptz NOT NULL,
          received_at timestamptz NOT NULL,
          session_id text NOT NULL,
          client_ip text NOT NULL,
          user_agent text NOT NULL,
          media_id text NOT NULL,
          media_type text NOT NULL CHECK (media_type IN ('movie', 'episode', 'audio', 'other')),
          media_name text NOT NULL,
          series_name text,
          duration_ms bigint NOT NULL CHECK (duration_ms >= 0),
          bytes_delta bigint NOT NULL CHECK (bytes_delta >= 0),
          position_sec double precision,
          runtime_sec double precision,
          node_id text NOT NULL,
          endpoint_id text,
          client text NOT NULL,
          device_name text NOT NULL,
          device_id text NOT NULL,
          play_method text NOT NULL,
          result text,
          reason text,
          extras jsonb NOT NULL DEFAULT '{}'
        );
        CREATE INDEX activity_log_occurred ON activity_log (occurred_at);
        CREATE INDEX activity_log_user ON activity_log (user_id, occurred_at);
        CREATE INDEX activity_log_media ON activity_log (media_id, occurred_at);
        CREATE INDEX activity_log_session ON activity_log (session_id);
      `.execute(db);
    },
  },
  {
    // The playback report (docs/report.md) reads windows of the log: a covering index on occurred_at lets the
    // cards, timeline, concurrency, heatmap and rankings scan a window without touching the wide rows. The
    // fixed-width columns come first: reading them then needs no offset computation past the text columns.
    name: 'V006__activity_log_report_index',
    async up(db) {
      await sql`
        CREATE INDEX activity_log_occurred_cover ON activity_log (occurred_at)
          INCLUDE (duration_ms, bytes_delta, user_id, event_type, media_type, session_id, media_id);
      `.execute(db);
    },
  },
  {
    // The playback report's per-session rollup (docs/report.md "Sessions rollup"): one row per play session and
    // device (session, user, item, media type, client, device name, platform) with its first and last event and
    // its sums. Statement-level triggers keep it equal to the log in the same transaction as every insert and
    // delete, so a report computed from it still always equals the raw events. The platform patterns are frozen
    // here (REPORT_PLATFORM_PATTERNS of this release): changing them needs a new migration that replaces
    // activity_platform() and rebuilds the rollup. The backfill is one aggregate over the whole log (about a
    // minute per 10 million events on PostgreSQL) while the migration holds the table.
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
  },
  timeRollupMigration,
  playSpanMigration,
  platformColumnMigration,
  libraryAccessMigration,
];
