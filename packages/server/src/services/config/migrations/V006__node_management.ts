import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * V006__node_management: the outbound /health probe of manual addresses (last result on the record), and a
 * record of every deleted node with what became of "send uninstall command".
 */
export const nodeManagementMigration: Migration = {
  name: 'V006__node_management',
  async up(db) {
    await sql`
      ALTER TABLE nodes
        ADD COLUMN health_status text CHECK (health_status IN ('online', 'offline')),
        ADD COLUMN health_checked_at timestamptz,
        ADD COLUMN health_detail text`.execute(db);
    // Slot counting and the listen-port rule read these.
    await sql`CREATE INDEX nodes_type_scope ON nodes (service_type, scope, disabled)`.execute(db);
    await sql`
      CREATE TABLE node_removals (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        node_id text NOT NULL,
        service_type text NOT NULL,
        name text NOT NULL,
        removed_at timestamptz NOT NULL,
        removed_by text,
        uninstall_requested boolean NOT NULL,
        uninstall_result text NOT NULL
          CHECK (uninstall_result IN ('not-requested', 'not-applicable', 'unreachable', 'not-sent'))
      )`.execute(db);
    await sql`CREATE INDEX node_removals_node ON node_removals (node_id)`.execute(db);
  },
};
