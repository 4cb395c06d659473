import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** V002: node records (storage, play-agent, manual play-agent addresses). */
export const nodes: Migration = {
  name: 'V002__nodes',
  async up(db) {
    await sql`
      CREATE TABLE nodes (
        node_id text PRIMARY KEY CHECK (node_id ~ '^node-[A-Za-z0-9_-]{3,60}$'),
        service_type text NOT NULL
          CHECK (service_type IN ('svc-control-storage', 'svc-play-agent', 'manual-play-agent-endpoint')),
        name text NOT NULL,
        scope text NOT NULL CHECK (scope IN ('EMBEDDED', 'EXTERNAL')),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ONLINE', 'offline')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
  },
};
