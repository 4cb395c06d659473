import { sql } from 'kysely';
import type { Migration } from '../../platform/db/index.js';
import { systemSettingsMigration } from '../shared/system-settings.migration.js';

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
];
