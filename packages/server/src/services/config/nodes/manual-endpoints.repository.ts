import type { Kysely } from 'kysely';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import type { ConfigDatabase } from '../config.db.js';
import type { ProbeResult } from './node-rows.js';
import {
  ENDPOINT_TOKEN_PREFIX,
  NODE_ID_PATTERN,
  newNodeId,
  newNodeToken,
  tokenSha256,
} from './node-tokens.js';

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

/** Manual reverse-proxy addresses: creation, endpoint tokens and the outbound /health probe's results. */
export class ManualEndpointsRepository {
  constructor(private readonly db: Kysely<ConfigDatabase>) {}

  create(input: ManualEndpointInput, now?: Date): Promise<ManualEndpoint> {
    return createManualEndpoint(this.db, input, now);
  }

  regenerateToken(nodeId: string, now?: Date): Promise<ManualEndpoint> {
    return regenerateEndpointToken(this.db, nodeId, now);
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
