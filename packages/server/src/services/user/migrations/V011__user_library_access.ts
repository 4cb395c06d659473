import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * Which libraries an account may browse and play (docs/auth.md, "Library access"). No row reads as mode ALL,
 * so accounts made before this migration keep seeing every library. The ids are the media service's: no
 * foreign key crosses the services, and an id of a deleted library simply matches nothing.
 */
export const libraryAccessMigration: Migration = {
  name: 'V011__user_library_access',
  async up(db) {
    await sql`
      CREATE TABLE user_library_access (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('ALL', 'ALLOW_LIST')),
        library_ids jsonb NOT NULL DEFAULT '[]',
        updated_at timestamptz NOT NULL
      );
    `.execute(db);
  },
};
