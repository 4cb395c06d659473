import type { Kysely } from 'kysely';
import type { RegisteredService, ServiceInstance } from '@svc/contracts';
import type { ConfigDatabase } from '../config.db.js';

export interface InstanceRecord {
  service: RegisteredService;
  instanceId: string;
  nodeId: string | null;
  baseUrl: string;
}

export class RegistryRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  async upsert(record: InstanceRecord, now: Date): Promise<void> {
    await this.db
      .insertInto('service_instances')
      .values({
        service: record.service,
        instance_id: record.instanceId,
        node_id: record.nodeId,
        base_url: record.baseUrl,
        last_seen_at: now,
      })
      .onConflict((conflict) =>
        conflict.columns(['service', 'instance_id']).doUpdateSet({
          node_id: record.nodeId,
          base_url: record.baseUrl,
          last_seen_at: now,
        }),
      )
      .execute();
  }

  async listSeenSince(
    filter: { service?: RegisteredService; nodeId?: string },
    since: Date,
  ): Promise<ServiceInstance[]> {
    let query = this.db.selectFrom('service_instances').selectAll().where('last_seen_at', '>=', since);
    if (filter.service) query = query.where('service', '=', filter.service);
    if (filter.nodeId) query = query.where('node_id', '=', filter.nodeId);
    const rows = await query.orderBy('last_seen_at', 'desc').execute();
    return rows.map((row) => ({
      service: row.service as RegisteredService,
      instanceId: row.instance_id,
      nodeId: row.node_id,
      baseUrl: row.base_url,
      registeredAt: new Date(row.registered_at).toISOString(),
      lastSeenAt: new Date(row.last_seen_at).toISOString(),
    }));
  }

  /** The newest registered address of a node (by last heartbeat), whatever its age. */
  async newestAddressOf(nodeId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('service_instances')
      .select('base_url')
      .where('node_id', '=', nodeId)
      .orderBy('last_seen_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.base_url;
  }

  async deleteSeenBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('service_instances')
      .where('last_seen_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
