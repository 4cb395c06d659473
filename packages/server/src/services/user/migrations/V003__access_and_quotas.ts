import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

export const accessAndQuotasMigration: Migration = {
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
};
