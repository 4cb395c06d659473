import type { Kysely } from 'kysely';
import type { ConfigDatabase, NodeServiceType } from './config.db.js';

export interface NodeSummary {
  nodeId: string;
  serviceType: NodeServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
}

export class NodesRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  /** Creates the record when it is missing; an existing record (and its history) is left alone. */
  async ensure(node: NodeSummary): Promise<void> {
    await this.db
      .insertInto('nodes')
      .values({ node_id: node.nodeId, service_type: node.serviceType, name: node.name, scope: node.scope })
      .onConflict((conflict) => conflict.column('node_id').doNothing())
      .execute();
  }

  async findByIds(ids: readonly string[]): Promise<NodeSummary[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('nodes')
      .select(['node_id', 'service_type', 'name', 'scope'])
      .where('node_id', 'in', ids)
      .execute();
    return rows.map((row) => ({
      nodeId: row.node_id,
      serviceType: row.service_type,
      name: row.name,
      scope: row.scope,
    }));
  }
}
