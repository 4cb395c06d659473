import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** V001: the service registry (service_instances) and the deployment state (edition). */
export const registryAndDeployment: Migration = {
  name: 'V001__registry_and_deployment',
  async up(db) {
    await sql`
      CREATE TABLE service_instances (
        service text NOT NULL,
        instance_id text NOT NULL,
        node_id text,
        base_url text NOT NULL,
        registered_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL,
        PRIMARY KEY (service, instance_id)
      )`.execute(db);
    await sql`CREATE INDEX service_instances_lookup ON service_instances (service, node_id, last_seen_at)`.execute(
      db,
    );
    await sql`
      CREATE TABLE deployment_state (
        id integer PRIMARY KEY CHECK (id = 1),
        edition text NOT NULL CHECK (edition IN ('STANDALONE', 'DISTRIBUTED')),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    await sql`INSERT INTO deployment_state (id, edition) VALUES (1, 'STANDALONE')`.execute(db);
  },
};
