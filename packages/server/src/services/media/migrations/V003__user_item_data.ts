import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** What each player user did with an item, and the index of Latest. */
export const v003UserItemData: Migration = {
  name: 'V003__user_item_data',
  async up(db) {
    await sql`
      -- What each user did with an item (the play-agent's users live in the user service: no foreign key).
      CREATE TABLE user_item_data (
        user_id uuid NOT NULL,
        item_id uuid NOT NULL REFERENCES media_items (id) ON DELETE CASCADE,
        played boolean NOT NULL DEFAULT false,
        play_count integer NOT NULL DEFAULT 0,
        is_favorite boolean NOT NULL DEFAULT false,
        position_ticks bigint NOT NULL DEFAULT 0,
        last_played_at timestamptz,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, item_id)
      );
      -- Deleting items (a rescan, a removed source) cascades through this index.
      CREATE INDEX user_item_data_item ON user_item_data (item_id);
      -- Latest: newest items of a library.
      CREATE INDEX media_items_library_created ON media_items (library_id, kind, created_at);
    `.execute(db);
  },
};
