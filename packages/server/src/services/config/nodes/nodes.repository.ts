import { sql, type Kysely, type Selectable } from 'kysely';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import { advisoryLockKey } from '../../../platform/db/index.js';
import type {
  ConfigDatabase,
  NodeRemovalsTable,
  NodeServiceType,
  NodeStatus,
  NodesTable,
} from '../config.db.js';
import {
  ENDPOINT_TOKEN_PREFIX,
  NODE_ID_PATTERN,
  NODE_TOKEN_PREFIX,
  REGISTRY_TOKEN_PREFIX,
  newNodeId,
  newNodeToken,
  tokenSha256,
} from './node-tokens.js';

export interface NodeSummary {
  nodeId: string;
  serviceType: NodeServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
}

/** A record as other services see it; `status` is the stored one (nodes.service.ts derives 'offline'). */
export interface NodeDirectoryRow extends NodeSummary {
  status: NodeStatus;
  lastHeartbeatAt: Date | null;
  disabled: boolean;
  /** Manual addresses: the last /health probe (null before the first). */
  healthStatus: 'online' | 'offline' | null;
}

/** A whole node record as node management reads it (every column but the endpoint token's hash). */
export type NodeRow = Omit<Selectable<NodesTable>, 'endpoint_token_sha256'>;

/** A new worker-node record (storage or play-agent) made by node management. */
export interface NewWorkerNode {
  nodeId: string;
  serviceType: 'svc-control-storage' | 'svc-play-agent';
  name: string;
  expectedHost: string;
  expectedPort: number | null;
  listenPort: number | null;
  note: string;
  external: { protocol: 'http' | 'https'; host: string; port: number | null } | null;
}

/** The columns node management may change. */
export interface NodeChanges {
  name?: string;
  note?: string;
  expectedHost?: string;
  expectedPort?: number | null;
  listenPort?: number | null;
  external?: { protocol: 'http' | 'https'; host: string; port: number | null } | null;
}

/** One outbound /health probe of a manual address. */
export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/** Serialises slot counting, listen-port choice and the insert of worker nodes, across instances. */
const NODE_SLOTS_LOCK = advisoryLockKey('svc_config:node-slots');

const nodeColumns = [
  'node_id',
  'service_type',
  'name',
  'scope',
  'status',
  'created_at',
  'updated_at',
  'node_token',
  'registry_token',
  'endpoint_token',
  'last_heartbeat_at',
  'listen_port',
  'expected_host',
  'expected_port',
  'note',
  'external_protocol',
  'external_host',
  'external_port',
  'disabled',
  'health_status',
  'health_checked_at',
  'health_detail',
] as const;

/** What the registration heartbeat needs to check a node's own registry token. */
export interface NodeHeartbeatCredentials {
  serviceType: NodeServiceType;
  registryToken: string | null;
  disabled: boolean;
}

/** The secrets of a record, kept retrievable for "show full command" (see docs/nodes.md). */
export interface NodeTokens {
  nodeToken: string | null;
  registryToken: string | null;
  endpointToken: string | null;
}

/** What a manual reverse-proxy address is made of. */
export interface ManualEndpointInput {
  /** Empty or absent: generated ('node-' + 12 random characters); typed: must match node-[A-Za-z0-9_-]{3,60}. */
  nodeId?: string;
  name: string;
  /** The playback domain. */
  host: string;
  /** 443 or null both give a URL without a port. */
  port?: number | null;
  note?: string;
  disabled?: boolean;
}

/** A manual reverse-proxy address (node record of serviceType manual-play-agent-endpoint). */
export interface ManualEndpoint {
  nodeId: string;
  name: string;
  protocol: 'https';
  host: string;
  port: number | null;
  /** https://host, with ':port' unless the port is 443 or empty. */
  url: string;
  endpointToken: string;
  disabled: boolean;
  note: string;
}

const HOST_PATTERN =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function manualEndpointUrl(host: string, port: number | null): string {
  return `https://${host}${port === null || port === 443 ? '' : `:${port}`}`;
}

const endpointColumns = [
  'node_id',
  'name',
  'external_host',
  'external_port',
  'endpoint_token',
  'disabled',
  'note',
] as const;

function toManualEndpoint(row: {
  node_id: string;
  name: string;
  external_host: string | null;
  external_port: number | null;
  endpoint_token: string | null;
  disabled: boolean;
  note: string;
}): ManualEndpoint {
  const host = row.external_host ?? '';
  return {
    nodeId: row.node_id,
    name: row.name,
    protocol: 'https',
    host,
    port: row.external_port,
    url: manualEndpointUrl(host, row.external_port),
    endpointToken: row.endpoint_token ?? '',
    disabled: row.disabled,
    note: row.note,
  };
}

/**
 * Creates a manual reverse-proxy address with a freshly generated endpoint token. Exported for tests that
 * seed one with a database handle (the console routes for it come with node management).
 */
export async function createManualEndpoint(
  db: Kysely<ConfigDatabase>,
  input: ManualEndpointInput,
  now: Date = new Date(),
): Promise<ManualEndpoint> {
  const nodeId = input.nodeId?.trim() ? input.nodeId.trim() : newNodeId();
  if (!NODE_ID_PATTERN.test(nodeId)) throw badRequest('node id must match node-[A-Za-z0-9_-]{3,60}');
  const name = input.name.trim();
  if (name.length === 0 || name.length > 128) throw badRequest('name must have 1 to 128 characters');
  const host = input.host.trim().toLowerCase();
  if (!HOST_PATTERN.test(host)) throw badRequest('host must be a domain name or an IPv4 address');
  const port = input.port ?? null;
  if (port !== null && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    throw badRequest('port must be between 1 and 65535');
  }
  const endpointToken = newNodeToken(ENDPOINT_TOKEN_PREFIX);
  const row = await db
    .insertInto('nodes')
    .values({
      node_id: nodeId,
      service_type: 'manual-play-agent-endpoint',
      name,
      scope: 'EXTERNAL',
      endpoint_token: endpointToken,
      endpoint_token_sha256: tokenSha256(endpointToken),
      external_protocol: 'https',
      external_host: host,
      external_port: port,
      note: input.note ?? '',
      disabled: input.disabled ?? false,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.column('node_id').doNothing())
    .returning(endpointColumns)
    .executeTakeFirst();
  if (!row) throw new AppError(409, 'NODE_ID_TAKEN', `node id ${nodeId} is taken`);
  return toManualEndpoint(row);
}

/**
 * Gives a manual address a new endpoint token; the old one stops resolving at once (every resolve reads the
 * database). 404 when nodeId is not a manual address.
 */
export async function regenerateEndpointToken(
  db: Kysely<ConfigDatabase>,
  nodeId: string,
  now: Date = new Date(),
): Promise<ManualEndpoint> {
  const endpointToken = newNodeToken(ENDPOINT_TOKEN_PREFIX);
  const row = await db
    .updateTable('nodes')
    .set({
      endpoint_token: endpointToken,
      endpoint_token_sha256: tokenSha256(endpointToken),
      updated_at: now,
    })
    .where('node_id', '=', nodeId)
    .where('service_type', '=', 'manual-play-agent-endpoint')
    .returning(endpointColumns)
    .executeTakeFirst();
  if (!row) throw notFound('manual address');
  return toManualEndpoint(row);
}

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

  createManualEndpoint(input: ManualEndpointInput, now?: Date): Promise<ManualEndpoint> {
    return createManualEndpoint(this.db, input, now);
  }

  regenerateEndpointToken(nodeId: string, now?: Date): Promise<ManualEndpoint> {
    return regenerateEndpointToken(this.db, nodeId, now);
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
        name: node.name,
        scope: 'EXTERNAL',
        node_token: newNodeToken(NODE_TOKEN_PREFIX),
        registry_token: newNodeToken(REGISTRY_TOKEN_PREFIX),
        expected_host: node.expectedHost,
        expected_port: node.expectedPort,
        listen_port: node.listenPort,
        note: node.note,
        external_protocol: node.external?.protocol ?? null,
        external_host: node.external?.host ?? null,
        external_port: node.external?.port ?? null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column('node_id').doNothing())
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

  /** Manual addresses the health probe visits: every one that is not disabled. */
  async manualAddressesToProbe(): Promise<{ nodeId: string; host: string; port: number | null }[]> {
    const rows = await this.db
      .selectFrom('nodes')
      .select(['node_id', 'external_host', 'external_port'])
      .where('service_type', '=', 'manual-play-agent-endpoint')
      .where('disabled', '=', false)
      .where('external_host', 'is not', null)
      .orderBy('node_id')
      .execute();
    return rows.map((row) => ({ nodeId: row.node_id, host: row.external_host!, port: row.external_port }));
  }

  /**
   * Stores a probe result, only while the address is still the one probed (an edit during the probe wins).
   * A success is also the address's "last heartbeat".
   */
  async recordProbe(
    target: { nodeId: string; host: string; port: number | null },
    result: ProbeResult,
    at: Date,
  ): Promise<boolean> {
    let query = this.db
      .updateTable('nodes')
      .set({
        health_status: result.ok ? 'online' : 'offline',
        health_checked_at: at,
        health_detail: result.detail.slice(0, 500),
        ...(result.ok ? { last_heartbeat_at: at } : {}),
      })
      .where('node_id', '=', target.nodeId)
      .where('service_type', '=', 'manual-play-agent-endpoint')
      .where('external_host', '=', target.host);
    query =
      target.port === null
        ? query.where('external_port', 'is', null)
        : query.where('external_port', '=', target.port);
    const updated = await query.executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }
}
