import { sql } from 'kysely';
import type { Migration } from '../../platform/db/index.js';

/** Every service database starts with a key/value table for the settings that service owns. */
export function systemSettingsMigration(name: string): Migration {
  return {
    name,
    async up(db) {
      await sql`
        CREATE TABLE system_settings (
          key text PRIMARY KEY,
          value jsonb NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
    },
  };
}
