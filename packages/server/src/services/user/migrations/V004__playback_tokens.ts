import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * Playback clients sign in through a play-agent: a third token kind that remembers the device and the
 * node it signed in on, and the time of each account's last sign-in.
 */
export const playbackTokensMigration: Migration = {
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
};
