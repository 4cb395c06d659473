import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** Drive accounts (docs/drives.md "Drive accounts"): the credentials drive mounts name by id. */
export const V003__drive_accounts: Migration = {
  name: 'V003__drive_accounts',
  async up(db) {
    await sql`
        CREATE TABLE storage_drive_accounts (
          id uuid PRIMARY KEY,
          name text NOT NULL,
          kind text NOT NULL CHECK (kind IN ('drive_a', 'drive_b')),
          config jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX storage_drive_accounts_name_unique ON storage_drive_accounts (lower(name));
    `.execute(db);
  },
};
