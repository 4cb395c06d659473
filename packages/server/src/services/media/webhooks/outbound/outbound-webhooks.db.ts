import type { ColumnType, Generated } from 'kysely';
import type {
  OutboundWebhookContentType,
  OutboundWebhookDeliveryStatus,
  OutboundWebhookMethod,
} from '@svc/contracts';
import type { MediaEventPayload } from '../../events/media-events.repository.js';

/** jsonb columns are read as parsed values and written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

/** A query or header item as stored: the plain value, also for sensitive items. */
export interface StoredKeyValue {
  key: string;
  value: string;
  sensitive: boolean;
}

/** Tables of migration V004__outbound_webhooks. */
export interface OutboundWebhookEndpointsTable {
  id: string;
  name: string;
  method: OutboundWebhookMethod;
  /** The URL template, in plain text also when url_sensitive. */
  url: string;
  content_type: OutboundWebhookContentType;
  enabled: boolean;
  url_sensitive: boolean;
  allow_private_network: boolean;
  query: Json<StoredKeyValue[]>;
  headers: Json<StoredKeyValue[]>;
  body: string;
  /** Subscribed libraries; empty = every library. */
  library_ids: Json<string[]>;
  /** Events that occurred before this time are not for this endpoint (created or last enabled then). */
  deliver_since: Date;
  created_at: Date;
  updated_at: Date;
}

export interface OutboundWebhookDeliveriesTable {
  id: string;
  /** Null once the endpoint is deleted (only finished deliveries survive it). */
  endpoint_id: string | null;
  endpoint_name: string;
  event_id: string;
  event_type: string;
  test: Generated<boolean>;
  /** The event as the templates see it, rendered again at every attempt with the endpoint's settings. */
  payload: Json<MediaEventPayload>;
  status: OutboundWebhookDeliveryStatus;
  attempts: Generated<number>;
  max_attempts: number;
  next_attempt_at: Date | null;
  last_http_status: number | null;
  last_error: string | null;
  response_excerpt: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

// A type alias (not an interface) so it fits Kysely's withTables<…>() constraint.
export type OutboundWebhookTables = {
  outbound_webhook_endpoints: OutboundWebhookEndpointsTable;
  outbound_webhook_deliveries: OutboundWebhookDeliveriesTable;
};
