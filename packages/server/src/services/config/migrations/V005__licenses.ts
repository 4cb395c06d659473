import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * V005__licenses: activated licences, the one-time codes used on this install, audit records waiting
 * for the user service, and the install id leases may be bound to.
 */
export const licensesMigration: Migration = {
  name: 'V005__licenses',
  async up(db) {
    await sql`
      CREATE TABLE licenses (
        id text PRIMARY KEY,
        lease text NOT NULL,
        payload jsonb NOT NULL,
        activated_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
    await sql`CREATE INDEX licenses_activated_at ON licenses (activated_at)`.execute(db);
    await sql`
      CREATE TABLE license_codes (
        code_id text PRIMARY KEY,
        license_id text NOT NULL REFERENCES licenses (id),
        used_at timestamptz NOT NULL
      )`.execute(db);
    await sql`
      CREATE TABLE license_audit_outbox (
        id text PRIMARY KEY,
        entry jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`.execute(db);
    // Generated here rather than in SQL: the bundled database has no pgcrypto.
    await sql`ALTER TABLE deployment_state ADD COLUMN install_id text`.execute(db);
    await sql`UPDATE deployment_state SET install_id = ${`inst-${randomUUID()}`}`.execute(db);
  },
};
