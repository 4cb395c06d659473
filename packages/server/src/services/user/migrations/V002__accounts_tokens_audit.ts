import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

export const accountsTokensAuditMigration: Migration = {
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
};
