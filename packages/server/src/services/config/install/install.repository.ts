import type { Kysely } from 'kysely';
import { secretsEqual } from '../../../platform/service-token.js';
import type { ConfigDatabase } from '../config.db.js';
import { NODE_TOKEN_PREFIX, REGISTRY_TOKEN_PREFIX, newNodeToken } from '../nodes/node-tokens.js';
import { type WorkerServiceType, isWorkerServiceType } from './install-kinds.js';

/** The parts of a worker-node record that install scripts and binary downloads need. */
export interface InstallTarget {
  nodeId: string;
  serviceType: WorkerServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
  disabled: boolean;
  nodeToken: string;
  registryToken: string;
  listenPort: number | null;
  expectedHost: string | null;
  expectedPort: number | null;
  externalProtocol: 'http' | 'https' | null;
  externalHost: string | null;
  externalPort: number | null;
}

/** A node token looks like this (svc_nt_ + base64url); anything else is refused without a query. */
const NODE_TOKEN_SHAPE = /^svc_nt_[A-Za-z0-9_-]{20,200}$/;

/**
 * The worker-node record a node token belongs to, or undefined. The unique index finds the row; the
 * stored token is then compared in constant time (secretsEqual) before it counts.
 */
export async function findByNodeToken(
  db: Kysely<ConfigDatabase>,
  token: string,
): Promise<InstallTarget | undefined> {
  if (!NODE_TOKEN_SHAPE.test(token)) return undefined;
  const row = await db
    .selectFrom('nodes')
    .select([
      'node_id',
      'service_type',
      'name',
      'scope',
      'disabled',
      'node_token',
      'registry_token',
      'listen_port',
      'expected_host',
      'expected_port',
      'external_protocol',
      'external_host',
      'external_port',
    ])
    .where('node_token', '=', token)
    .executeTakeFirst();
  if (!row || row.node_token === null || row.registry_token === null) return undefined;
  if (!isWorkerServiceType(row.service_type) || !secretsEqual(token, row.node_token)) return undefined;
  return {
    nodeId: row.node_id,
    serviceType: row.service_type,
    name: row.name,
    scope: row.scope,
    disabled: row.disabled,
    nodeToken: row.node_token,
    registryToken: row.registry_token,
    listenPort: row.listen_port,
    expectedHost: row.expected_host,
    expectedPort: row.expected_port,
    externalProtocol: row.external_protocol,
    externalHost: row.external_host,
    externalPort: row.external_port,
  };
}

/** The lookups of install scripts and binary downloads. */
export class InstallRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  findByNodeToken(token: string): Promise<InstallTarget | undefined> {
    return findByNodeToken(this.db, token);
  }
}

/** What a test gives to seedWorkerNode. */
export interface WorkerNodeSeed {
  nodeId: string;
  serviceType: WorkerServiceType;
  name: string;
  scope?: 'EMBEDDED' | 'EXTERNAL';
  listenPort?: number | null;
  expectedHost?: string | null;
  expectedPort?: number | null;
  disabled?: boolean;
}

/**
 * Writes a worker-node record with fresh node and registry tokens straight into the database and returns
 * them. For tests: node management's create route also claims a licence slot, which install tests do not
 * exercise.
 */
export async function seedWorkerNode(
  db: Kysely<ConfigDatabase>,
  seed: WorkerNodeSeed,
): Promise<{ nodeToken: string; registryToken: string }> {
  const nodeToken = newNodeToken(NODE_TOKEN_PREFIX);
  const registryToken = newNodeToken(REGISTRY_TOKEN_PREFIX);
  await db
    .insertInto('nodes')
    .values({
      node_id: seed.nodeId,
      service_type: seed.serviceType,
      name: seed.name,
      scope: seed.scope ?? 'EXTERNAL',
      node_token: nodeToken,
      registry_token: registryToken,
      listen_port: seed.listenPort ?? null,
      expected_host: seed.expectedHost ?? null,
      expected_port: seed.expectedPort ?? null,
      disabled: seed.disabled ?? false,
    })
    .execute();
  return { nodeToken, registryToken };
}
