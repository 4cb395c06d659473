import { sql } from 'kysely';
import type { Migration } from '../../../platform/db/index.js';

/** Outbound webhook endpoints and their deliveries (docs/webhooks.md). */
export const v004OutboundWebhooks: Migration = {
  name: 'V004__outbound_webhooks',
  async up(db) {
    await sql`
      -- Outbound webhook endpoints (docs/webhooks.md). Sensitive values are stored plain: they are sent.
      CREATE TABLE outbound_webhook_endpoints (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        method text NOT NULL CHECK (method IN ('POST', 'PUT', 'PATCH', 'GET')),
        url text NOT NULL,
        content_type text NOT NULL,
        enabled boolean NOT NULL,
        url_sensitive boolean NOT NULL,
        allow_private_network boolean NOT NULL,
        query jsonb NOT NULL DEFAULT '[]',
        headers jsonb NOT NULL DEFAULT '[]',
        body text NOT NULL,
        library_ids jsonb NOT NULL DEFAULT '[]',
        deliver_since timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );

      -- One event for one endpoint, or one test send. Deleting an endpoint deletes its unsent deliveries
      -- first; the finished ones keep the endpoint's name.
      CREATE TABLE outbound_webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid REFERENCES outbound_webhook_endpoints (id) ON DELETE SET NULL,
        endpoint_name text NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        test boolean NOT NULL DEFAULT false,
        payload jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'SUCCEEDED', 'DEAD')),
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL,
        next_attempt_at timestamptz,
        last_http_status integer,
        last_error text,
        response_excerpt text,
        created_at timestamptz NOT NULL,
        last_attempt_at timestamptz,
        delivered_at timestamptz
      );
      -- An event reaches an endpoint once, however often the fan-out runs.
      CREATE UNIQUE INDEX outbound_webhook_deliveries_event
        ON outbound_webhook_deliveries (endpoint_id, event_id) WHERE NOT test;
      CREATE INDEX outbound_webhook_deliveries_due
        ON outbound_webhook_deliveries (next_attempt_at) WHERE status IN ('PENDING', 'RETRYING');
      CREATE INDEX outbound_webhook_deliveries_created ON outbound_webhook_deliveries (created_at DESC, id DESC);
      CREATE INDEX outbound_webhook_deliveries_endpoint
        ON outbound_webhook_deliveries (endpoint_id, created_at DESC);
    `.execute(db);
  },
};
