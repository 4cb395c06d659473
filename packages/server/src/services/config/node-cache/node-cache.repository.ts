import type { ColumnType, Kysely } from 'kysely';

/** Table node_cache_configs (migration V009__node_cache_configs). */
export interface NodeCacheConfigsTable {
  node_id: string;
  /** JSON: read as a value, written as its JSON text. */
  config: ColumnType<unknown, string, string>;
  updated_at: Date;
}

interface CacheConfigsOnly {
  node_cache_configs: NodeCacheConfigsTable;
}

/** The only SQL of node cache configurations. */
export class NodeCacheConfigsRepository<DB = CacheConfigsOnly> {
  private readonly db: Kysely<CacheConfigsOnly>;

  constructor(db: Kysely<DB>) {
    // The config database's type includes the table through its migration; only this table is used here.
    this.db = db as unknown as Kysely<CacheConfigsOnly>;
  }

  /** The stored JSON, undefined when the node never had one saved. */
  async find(nodeId: string): Promise<unknown> {
    const row = await this.db
      .selectFrom('node_cache_configs')
      .select('config')
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    return row?.config;
  }

  async save(nodeId: string, config: unknown, now: Date): Promise<void> {
    const json = JSON.stringify(config);
    await this.db
      .insertInto('node_cache_configs')
      .values({ node_id: nodeId, config: json, updated_at: now })
      .onConflict((conflict) => conflict.column('node_id').doUpdateSet({ config: json, updated_at: now }))
      .execute();
  }
}
