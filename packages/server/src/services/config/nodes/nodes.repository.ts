import { sql, type Kysely } from 'kysely';
import { advisoryLockKey } from '../../../platform/db/index.js';
import type { ConfigDatabase, NodeRemovalsTable, NodeServiceType } from '../config.db.js';
import {
  nodeColumns,
  type NewWorkerNode,
  type NodeChanges,
  type NodeDirectoryRow,
  type NodeHeartbeatCredentials,
  type NodeRow,
  type NodeSummary,
  type NodeTokens,
} from './node-rows.js';
import { NODE_TOKEN_PREFIX, REGISTRY_TOKEN_PREFIX, newNodeToken } from './node-tokens.js';

/** Serialises slot counting, listen-port choice and the insert of worker nodes, across instances. */
const NODE_SLOTS_LOCK = advisoryLockKey('svc_config:node-slots');

export class NodesRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  /**
   * Creates a worker-node record when it is missing, with its node token and registry token generated once;
   * an existing record (its tokens and history) is left alone.
   */
  async ensure(node: NodeSummary): Promise<void> {
    if (node.serviceType === 'manual-play-agent-endpoint') {
      throw new Error('manual addresses are created with createManualEndpoint');
    }
    await this.db
      .insertInto('nodes')
      .values({
        node_id: node.nodeId,
        service_type: node.serviceType,
        name: node.name,
        scope: node.scope,
        node_token: newNodeToken(NODE_TOKEN_PREFIX),
        registry_token: newNodeToken(REGISTRY_TOKEN_PREFIX),
      })
      .onConflict((conflict) => conflict.column('node_id').doNothing())
      .execute();
  }

  async findByIds(ids: readonly string[]): Promise<NodeDirectoryRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('nodes')
      .select([
        'node_id',
        'service_type',
        'name',
        'scope',
        'status',
        'last_heartbeat_at',
        'disabled',
        'health_status',
      ])
      .where('node_id', 'in', ids)
      .execute();
    return rows.map((row) => ({
      nodeId: row.node_id,
      serviceType: row.service_type,
      name: row.name,
      scope: row.scope,
      status: row.status,
      lastHeartbeatAt: row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at),
      disabled: row.disabled,
      healthStatus: row.health_status,
    }));
  }

  async heartbeatCredentials(nodeId: string): Promise<NodeHeartbeatCredentials | undefined> {
    const row = await this.db
      .selectFrom('nodes')
      .select(['service_type', 'registry_token', 'disabled'])
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    return (
      row && { serviceType: row.service_type, registryToken: row.registry_token, disabled: row.disabled }
    );
  }

  /** A valid heartbeat: the record is ONLINE and remembers when. False when no such record of that type exists. */
  async recordHeartbeat(nodeId: string, serviceType: NodeServiceType, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('nodes')
      .set({ status: 'ONLINE', last_heartbeat_at: at })
      .where('node_id', '=', nodeId)
      .where('service_type', '=', serviceType)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async tokens(nodeId: string): Promise<NodeTokens | undefined> {
    const row = await this.db
      .selectFrom('nodes')
      .select(['node_token', 'registry_token', 'endpoint_token'])
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    return (
      row && {
        nodeToken: row.node_token,
        registryToken: row.registry_token,
        endpointToken: row.endpoint_token,
      }
    );
  }

  /** The manual address whose endpoint token has this SHA-256, looked up by the hash (never by the secret). */
  async findEndpointByTokenHash(
    sha256: string,
  ): Promise<{ nodeId: string; endpointToken: string; disabled: boolean } | undefined> {
    const row = await this.db
      .selectFrom('nodes')
      .select(['node_id', 'endpoint_token', 'disabled'])
      .where('endpoint_token_sha256', '=', sha256)
      .where('service_type', '=', 'manual-play-agent-endpoint')
      .executeTakeFirst();
    if (!row || row.endpoint_token === null) return undefined;
    return { nodeId: row.node_id, endpointToken: row.endpoint_token, disabled: row.disabled };
  }

  // --- Node management --------------------------------------------------------------------------------

  /**
   * Runs `work` in one transaction that first takes the transaction-scoped advisory lock of the node slots,
   * with a repository bound to that transaction: concurrent creations (also on other instances) count and
   * insert one after the other, so two of them can never take the same last slot or the same listen port.
   */
  async withSlotsLock<T>(work: (locked: NodesRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${NODE_SLOTS_LOCK}::bigint)`.execute(trx);
      return work(new NodesRepository(trx));
    });
  }

  /**
   * Runs `work` in one transaction that first locks the deployment state row (the edition upgrade holds the
   * same lock, so it cannot interleave) and then takes the node slots lock; the edition is read under the lock.
   * Legacy-node promotion (legacy-nodes.service.ts) uses it.
   */
  async withEditionLock<T>(
    work: (locked: NodesRepository, edition: 'STANDALONE' | 'DISTRIBUTED') => Promise<T>,
  ): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('deployment_state')
        .select('edition')
        .where('id', '=', 1)
        .forUpdate()
        .executeTakeFirst();
      await sql`SELECT pg_advisory_xact_lock(${NODE_SLOTS_LOCK}::bigint)`.execute(trx);
      return work(new NodesRepository(trx), row?.edition ?? 'STANDALONE');
    });
  }

  /** EXTERNAL storage and play-agent records (legacy nodes before promotion), disabled ones included. */
  async externalWorkers(): Promise<NodeRow[]> {
    return this.db
      .selectFrom('nodes')
      .select(nodeColumns)
      .where('scope', '=', 'EXTERNAL')
      .where('service_type', 'in', ['svc-control-storage', 'svc-play-agent'])
      .orderBy('created_at')
      .orderBy('node_id')
      .execute();
  }

  /**
   * Promotes one EXTERNAL, non-disabled record of `serviceType` to EMBEDDED (id, tokens and history kept) and
   * disables the other EXTERNAL records of the type (kept). Returns the ids disabled; undefined when `nodeId`
   * is no such record (nothing changed).
   */
  async promoteExternal(
    serviceType: 'svc-control-storage' | 'svc-play-agent',
    nodeId: string,
    now: Date,
  ): Promise<string[] | undefined> {
    const promoted = await this.db
      .updateTable('nodes')
      .set({ scope: 'EMBEDDED', updated_at: now })
      .where('node_id', '=', nodeId)
      .where('service_type', '=', serviceType)
      .where('scope', '=', 'EXTERNAL')
      .where('disabled', '=', false)
      .returning('node_id')
      .executeTakeFirst();
    if (!promoted) return undefined;
    const disabled = await this.db
      .updateTable('nodes')
      .set({ disabled: true, updated_at: now })
      .where('service_type', '=', serviceType)
      .where('scope', '=', 'EXTERNAL')
      .where('disabled', '=', false)
      .returning('node_id')
      .execute();
    return disabled.map((row) => row.node_id).sort();
  }

  /** The install's edition (deployment state, what the capabilities report). */
  async edition(): Promise<'STANDALONE' | 'DISTRIBUTED'> {
    const row = await this.db
      .selectFrom('deployment_state')
      .select('edition')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.edition ?? 'STANDALONE';
  }

  async list(): Promise<NodeRow[]> {
    return this.db.selectFrom('nodes').select(nodeColumns).orderBy('created_at').orderBy('node_id').execute();
  }

  async get(nodeId: string): Promise<NodeRow | undefined> {
    return this.db.selectFrom('nodes').select(nodeColumns).where('node_id', '=', nodeId).executeTakeFirst();
  }

  /** Licence slots in use: EXTERNAL, non-disabled records of each worker type (built-in and manual never count). */
  async slotsUsed(): Promise<{ storage: number; playAgent: number }> {
    const rows = await this.db
      .selectFrom('nodes')
      .select(['service_type', (eb) => eb.fn.countAll<string>().as('count')])
      .where('scope', '=', 'EXTERNAL')
      .where('disabled', '=', false)
      .where('service_type', 'in', ['svc-control-storage', 'svc-play-agent'])
      .groupBy('service_type')
      .execute();
    const count = (type: NodeServiceType) =>
      Number(rows.find((row) => row.service_type === type)?.count ?? 0);
    return { storage: count('svc-control-storage'), playAgent: count('svc-play-agent') };
  }

  /** Listen ports of the play-agents whose expected host is `host` (any letter case), other than `exceptNodeId`. */
  async playAgentPortsOnHost(
    host: string,
    defaultPort: number,
    exceptNodeId?: string,
  ): Promise<{ nodeId: string; port: number }[]> {
    let query = this.db
      .selectFrom('nodes')
      .select(['node_id', 'listen_port'])
      .where('service_type', '=', 'svc-play-agent')
      .where(sql<string>`lower(expected_host)`, '=', host.toLowerCase());
    if (exceptNodeId !== undefined) query = query.where('node_id', '<>', exceptNodeId);
    const rows = await query.execute();
    return rows.map((row) => ({ nodeId: row.node_id, port: row.listen_port ?? defaultPort }));
  }

  /** Inserts a worker-node record with fresh node and registry tokens; undefined when the id is taken. */
  async insertWorker(node: NewWorkerNode, now: Date): Promise<NodeRow | undefined> {
    return this.db
      .insertInto('nodes')
      .values({
        node_id: node.nodeId,
        service_type: node.serviceType,
        scope: 'EXTERNAL',
        ...workerPlacement(node),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column('node_id').doNothing())
      .returning(nodeColumns)
      .executeTakeFirst();
  }

  /**
   * Turns a built-in record of the node's type into a worker node to install elsewhere: scope EXTERNAL, PENDING
   * until its first heartbeat, the placement given, new node and registry tokens (the new machine never shares
   * a secret with the old deployment). The id, and so every reference to it, stays. Undefined when the record is
   * not (or no longer) a built-in one of that type.
   */
  async takeOverBuiltIn(node: NewWorkerNode, now: Date): Promise<NodeRow | undefined> {
    return this.db
      .updateTable('nodes')
      .set({
        scope: 'EXTERNAL',
        status: 'PENDING',
        last_heartbeat_at: null,
        ...workerPlacement(node),
        disabled: false,
        updated_at: now,
      })
      .where('node_id', '=', node.nodeId)
      .where('service_type', '=', node.serviceType)
      .where('scope', '=', 'EMBEDDED')
      .returning(nodeColumns)
      .executeTakeFirst();
  }

  /** Applies the changes; a manual address whose address changes forgets its last probe. */
  async update(nodeId: string, changes: NodeChanges, now: Date): Promise<NodeRow | undefined> {
    const external = changes.external;
    return this.db
      .updateTable('nodes')
      .set({
        updated_at: now,
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.note === undefined ? {} : { note: changes.note }),
        ...(changes.expectedHost === undefined ? {} : { expected_host: changes.expectedHost }),
        ...(changes.expectedPort === undefined ? {} : { expected_port: changes.expectedPort }),
        ...(changes.listenPort === undefined ? {} : { listen_port: changes.listenPort }),
        ...(external === undefined
          ? {}
          : {
              external_protocol: external?.protocol ?? null,
              external_host: external?.host ?? null,
              external_port: external?.port ?? null,
              health_status: null,
              health_checked_at: null,
              health_detail: null,
            }),
      })
      .where('node_id', '=', nodeId)
      .returning(nodeColumns)
      .executeTakeFirst();
  }

  /**
   * Deletes a record and writes its removal record in one transaction. Nothing else goes: registry entries,
   * library bindings (media service) and user node access keep naming the id.
   */
  async deleteWithRemoval(
    nodeId: string,
    removal: Omit<NodeRemovalsTable, 'id' | 'node_id' | 'service_type' | 'name'>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('nodes')
        .where('node_id', '=', nodeId)
        .where('scope', '=', 'EXTERNAL')
        .returning(['node_id', 'service_type', 'name'])
        .executeTakeFirst();
      if (!deleted) return false;
      await trx
        .insertInto('node_removals')
        .values({
          node_id: deleted.node_id,
          service_type: deleted.service_type,
          name: deleted.name,
          ...removal,
        })
        .execute();
      return true;
    });
  }
}

/** What a new or taken-over worker record is given: its name, placement and fresh node and registry tokens. */
function workerPlacement(node: NewWorkerNode) {
  return {
    name: node.name,
    node_token: newNodeToken(NODE_TOKEN_PREFIX),
    registry_token: newNodeToken(REGISTRY_TOKEN_PREFIX),
    expected_host: node.expectedHost,
    expected_port: node.expectedPort,
    listen_port: node.listenPort,
    note: node.note,
    external_protocol: node.external?.protocol ?? null,
    external_host: node.external?.host ?? null,
    external_port: node.external?.port ?? null,
  };
}
