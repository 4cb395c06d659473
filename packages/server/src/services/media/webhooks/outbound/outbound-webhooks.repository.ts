import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { MediaDatabase } from '../../media.db.js';
import type {
  OutboundWebhookDeliveriesTable,
  OutboundWebhookEndpointsTable,
  OutboundWebhookTables,
} from './outbound-webhooks.db.js';

export type EndpointRow = Selectable<OutboundWebhookEndpointsTable>;
export type NewEndpoint = Insertable<OutboundWebhookEndpointsTable>;
export type EndpointChanges = Updateable<OutboundWebhookEndpointsTable>;
export type DeliveryRow = Selectable<OutboundWebhookDeliveriesTable>;
export type NewDelivery = Insertable<OutboundWebhookDeliveriesTable>;
/** A delivery with its endpoint's current name (null when the endpoint is gone). */
export type ListedDelivery = DeliveryRow & { current_name: string | null };

type Db = Kysely<MediaDatabase & OutboundWebhookTables>;

const UNSENT = ['PENDING', 'RETRYING'] as const;

/** Endpoints and deliveries of the outbound webhooks (migration V004). */
export class OutboundWebhooksRepository {
  private readonly db: Db;

  constructor(db: Kysely<MediaDatabase>) {
    this.db = db.withTables<OutboundWebhookTables>();
  }

  async listEndpoints(): Promise<EndpointRow[]> {
    return this.db
      .selectFrom('outbound_webhook_endpoints')
      .selectAll()
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  async getEndpoint(id: string): Promise<EndpointRow | undefined> {
    return this.db
      .selectFrom('outbound_webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async enabledEndpoints(): Promise<EndpointRow[]> {
    return this.db
      .selectFrom('outbound_webhook_endpoints')
      .selectAll()
      .where('enabled', '=', true)
      .orderBy('created_at')
      .execute();
  }

  async insertEndpoint(row: NewEndpoint): Promise<EndpointRow> {
    return this.db
      .insertInto('outbound_webhook_endpoints')
      .values(row)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async updateEndpoint(id: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
    return this.db
      .updateTable('outbound_webhook_endpoints')
      .set(changes)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Deletes the endpoint and its unsent (PENDING, RETRYING) deliveries in one transaction; finished ones stay
   * in the list with the endpoint's name. False when there was no such endpoint.
   */
  async deleteEndpoint(id: string): Promise<{ deleted: boolean; unsent: number }> {
    return this.db.transaction().execute(async (trx) => {
      const endpoint = await trx
        .selectFrom('outbound_webhook_endpoints')
        .select('id')
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!endpoint) return { deleted: false, unsent: 0 };
      const unsent = await trx
        .deleteFrom('outbound_webhook_deliveries')
        .where('endpoint_id', '=', id)
        .where('status', 'in', UNSENT)
        .executeTakeFirst();
      await trx.deleteFrom('outbound_webhook_endpoints').where('id', '=', id).execute();
      return { deleted: true, unsent: Number(unsent.numDeletedRows) };
    });
  }

  /** Library ids among the given ones that exist. */
  async existingLibraries(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('libraries').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((row) => row.id));
  }

  /** Adds deliveries; one that exists already for the same endpoint and event is left alone. */
  async insertDeliveries(rows: readonly NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('outbound_webhook_deliveries')
      .values([...rows])
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async insertDelivery(row: NewDelivery): Promise<DeliveryRow> {
    return this.db
      .insertInto('outbound_webhook_deliveries')
      .values(row)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Unsent deliveries whose time has come, of enabled endpoints, the longest waiting first. */
  async dueDeliveries(now: Date, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('outbound_webhook_deliveries as d')
      .innerJoin('outbound_webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .selectAll('d')
      .where('d.status', 'in', UNSENT)
      .where('d.next_attempt_at', '<=', now)
      .where('e.enabled', '=', true)
      .orderBy('d.next_attempt_at')
      .orderBy('d.created_at')
      .limit(limit)
      .execute();
  }

  /** Writes an attempt's result; a delivery deleted meanwhile (its endpoint was deleted) stays deleted. */
  async recordAttempt(
    id: string,
    result: Pick<
      DeliveryRow,
      | 'status'
      | 'attempts'
      | 'next_attempt_at'
      | 'last_http_status'
      | 'last_error'
      | 'response_excerpt'
      | 'last_attempt_at'
      | 'delivered_at'
    >,
  ): Promise<DeliveryRow | undefined> {
    return this.db
      .updateTable('outbound_webhook_deliveries')
      .set(result)
      .where('id', '=', id)
      .where('status', 'in', UNSENT)
      .returningAll()
      .executeTakeFirst();
  }

  async getDelivery(id: string): Promise<ListedDelivery | undefined> {
    return this.listQuery().where('d.id', '=', id).executeTakeFirst();
  }

  /** The latest deliveries first. */
  async listDeliveries(limit: number, endpointId?: string): Promise<ListedDelivery[]> {
    let query = this.listQuery();
    if (endpointId) query = query.where('d.endpoint_id', '=', endpointId);
    return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
  }

  private listQuery() {
    return this.db
      .selectFrom('outbound_webhook_deliveries as d')
      .leftJoin('outbound_webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .selectAll('d')
      .select('e.name as current_name');
  }

  /** Deletes SUCCEEDED and DEAD deliveries finished before the given time. */
  async pruneFinished(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('outbound_webhook_deliveries')
      .where('status', 'in', ['SUCCEEDED', 'DEAD'])
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
