import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * What players did, as the play-agents report it (docs/activity-log.md). No foreign key to users: the
 * history outlives a deleted account, which is why the user name is kept with every event.
 */
export const activityLogMigration: Migration = {
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
};
