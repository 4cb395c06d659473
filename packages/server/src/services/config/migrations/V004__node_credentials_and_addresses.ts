import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';
import { NODE_TOKEN_PREFIX, REGISTRY_TOKEN_PREFIX, newNodeToken } from '../nodes/node-tokens.js';

/** V004: node and registry tokens, endpoint tokens of manual addresses, expected and external addresses. */
export const nodeCredentialsAndAddresses: Migration = {
  name: 'V004__node_credentials_and_addresses',
  async up(db) {
    await sql`
      ALTER TABLE nodes
        ADD COLUMN node_token text,
        ADD COLUMN registry_token text,
        ADD COLUMN endpoint_token text,
        ADD COLUMN endpoint_token_sha256 text,
        ADD COLUMN last_heartbeat_at timestamptz,
        ADD COLUMN listen_port integer CHECK (listen_port BETWEEN 1 AND 65535),
        ADD COLUMN expected_host text,
        ADD COLUMN expected_port integer CHECK (expected_port BETWEEN 1 AND 65535),
        ADD COLUMN note text NOT NULL DEFAULT '',
        ADD COLUMN external_protocol text CHECK (external_protocol IN ('http', 'https')),
        ADD COLUMN external_host text,
        ADD COLUMN external_port integer CHECK (external_port BETWEEN 1 AND 65535),
        ADD COLUMN disabled boolean NOT NULL DEFAULT false`.execute(db);
    // Records made before this version (the built-in nodes) get their tokens now; tokens are generated
    // here rather than in SQL because the bundled database has no pgcrypto.
    const rows = await sql<{ node_id: string }>`
      SELECT node_id FROM nodes WHERE service_type <> 'manual-play-agent-endpoint'`.execute(db);
    for (const row of rows.rows) {
      await sql`
        UPDATE nodes
        SET node_token = ${newNodeToken(NODE_TOKEN_PREFIX)}, registry_token = ${newNodeToken(REGISTRY_TOKEN_PREFIX)}
        WHERE node_id = ${row.node_id}`.execute(db);
    }
    // Worker nodes have a node token and a registry token; a manual address has only an endpoint token.
    await sql`
      ALTER TABLE nodes ADD CONSTRAINT nodes_tokens_by_type CHECK (
        CASE WHEN service_type = 'manual-play-agent-endpoint'
          THEN endpoint_token IS NOT NULL AND endpoint_token_sha256 IS NOT NULL
            AND node_token IS NULL AND registry_token IS NULL
          ELSE endpoint_token IS NULL AND endpoint_token_sha256 IS NULL
            AND node_token IS NOT NULL AND registry_token IS NOT NULL
        END)`.execute(db);
    await sql`CREATE UNIQUE INDEX nodes_node_token ON nodes (node_token) WHERE node_token IS NOT NULL`.execute(
      db,
    );
    await sql`
      CREATE UNIQUE INDEX nodes_endpoint_token_sha256 ON nodes (endpoint_token_sha256)
      WHERE endpoint_token_sha256 IS NOT NULL`.execute(db);
  },
};
