import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * V009__node_cache_configs: the cache configuration of each play-agent node (docs/vfs-cache.md), a whole
 * NodeCacheConfig as JSON. A node without a row has the defaults; the row goes with its node.
 */
export const nodeCacheConfigsMigration: Migration = {
  name: 'V009__node_cache_configs',
  async up(db) {
    await sql`
      CREATE TABLE node_cache_configs (
        node_id text PRIMARY KEY REFERENCES nodes (node_id) ON DELETE CASCADE,
        config jsonb NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
  },
};
