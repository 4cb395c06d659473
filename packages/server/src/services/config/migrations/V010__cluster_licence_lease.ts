import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/**
 * V010__cluster_licence_lease: the cluster licence sync of DISTRIBUTED control instances (docs/licences.md):
 * one lease row (who holds it, until when, its term, the licence status the holder last verified) and one row
 * per control instance seen.
 */
export const clusterLicenceLeaseMigration: Migration = {
  name: 'V010__cluster_licence_lease',
  async up(db) {
    await sql`
      CREATE TABLE cluster_licence_lease (
        id smallint PRIMARY KEY CHECK (id = 1),
        holder text NOT NULL,
        holder_url text NOT NULL,
        term bigint NOT NULL,
        acquired_at timestamptz NOT NULL,
        renewed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        licence jsonb
      )`.execute(db);
    await sql`
      CREATE TABLE cluster_licence_members (
        instance_id text PRIMARY KEY,
        url text NOT NULL,
        last_seen_at timestamptz NOT NULL
      )`.execute(db);
  },
};
