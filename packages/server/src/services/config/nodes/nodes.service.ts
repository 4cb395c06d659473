import type { ResolveEndpointResponse } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { secretsEqual } from '../../../platform/service-token.js';
import type { NodeServiceType, NodeStatus } from '../config.db.js';
import type { NodeDirectoryRow } from './node-rows.js';
import type { NodesRepository } from './nodes.repository.js';
import { tokenSha256 } from './node-tokens.js';

/**
 * A node whose last heartbeat is older than this reads as offline. Heartbeats come every 10 s, so this is
 * three missed in a row (the same window as a registry entry's liveness).
 */
export const NODE_OFFLINE_AFTER_MS = 30_000;

/** The status shown for a record: ONLINE turns into offline once the heartbeats stop. Computed on read. */
export function effectiveNodeStatus(
  stored: NodeStatus,
  lastHeartbeatAt: Date | null,
  now: number,
): NodeStatus {
  if (stored === 'PENDING') return 'PENDING';
  if (lastHeartbeatAt === null || now - lastHeartbeatAt.getTime() > NODE_OFFLINE_AFTER_MS) return 'offline';
  return 'ONLINE';
}

/**
 * The status shown for any record. Worker nodes: see effectiveNodeStatus. Manual addresses never register:
 * PENDING until the first /health probe, then ONLINE or offline as the last probe found.
 */
export function nodeStatusOf(
  row: {
    serviceType: NodeServiceType;
    status: NodeStatus;
    lastHeartbeatAt: Date | null;
    healthStatus: 'online' | 'offline' | null;
  },
  now: number,
): NodeStatus {
  if (row.serviceType === 'manual-play-agent-endpoint') {
    if (row.healthStatus === null) return 'PENDING';
    return row.healthStatus === 'online' ? 'ONLINE' : 'offline';
  }
  return effectiveNodeStatus(row.status, row.lastHeartbeatAt, now);
}

/** What a record shows: its liveness, or AWAITING_INSTALL for a former built-in node (below). */
export type ShownNodeStatus = NodeStatus | 'AWAITING_INSTALL';

/**
 * The status node management shows. After the edition upgrade a built-in record (scope EMBEDDED) no longer has a
 * standalone supervisor behind it: once it sends no heartbeat it reads AWAITING_INSTALL (to be taken over and
 * installed on a target machine under the same id, docs/nodes.md), never PENDING forever. While the old
 * standalone deployment still runs it (it keeps heartbeating), it reads ONLINE.
 */
export function shownNodeStatus(
  row: Parameters<typeof nodeStatusOf>[0] & { scope: 'EMBEDDED' | 'EXTERNAL' },
  now: number,
  edition: 'STANDALONE' | 'DISTRIBUTED',
): ShownNodeStatus {
  const status = nodeStatusOf(row, now);
  if (edition === 'DISTRIBUTED' && row.scope === 'EMBEDDED' && status !== 'ONLINE') return 'AWAITING_INSTALL';
  return status;
}

export interface NodeDirectoryEntry {
  nodeId: string;
  serviceType: NodeServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
  status: ShownNodeStatus;
  lastHeartbeatAt: string | null;
  disabled: boolean;
}

/** Node records: what other services may know of them, heartbeats, and manual addresses' endpoint tokens. */
export class NodesService {
  constructor(
    private readonly repository: NodesRepository,
    private readonly clock: Clock,
  ) {}

  async directory(ids: readonly string[]): Promise<NodeDirectoryEntry[]> {
    const now = this.clock.now();
    const edition = await this.repository.edition();
    return (await this.repository.findByIds(ids)).map((row: NodeDirectoryRow) => ({
      nodeId: row.nodeId,
      serviceType: row.serviceType,
      name: row.name,
      scope: row.scope,
      status: shownNodeStatus(row, now, edition),
      lastHeartbeatAt: row.lastHeartbeatAt?.toISOString() ?? null,
      disabled: row.disabled,
    }));
  }

  /**
   * True when `token` is the registry token of the record `nodeId` and that record is a node of the
   * registering service's type (a storage node's token does not register a play-agent). Constant time.
   */
  async registryTokenMatches(nodeId: string, service: string, token: string): Promise<boolean> {
    const node = await this.repository.heartbeatCredentials(nodeId);
    // Compare even when there is nothing to compare with, so the answer takes the same time.
    const expected = node?.registryToken ?? '';
    const equal = secretsEqual(token, expected);
    return node !== undefined && node.registryToken !== null && node.serviceType === service && equal;
  }

  /** A valid heartbeat of a worker node: PENDING (or offline) → ONLINE, last heartbeat now. */
  async heartbeat(nodeId: string, service: string): Promise<void> {
    if (service !== 'svc-play-agent' && service !== 'svc-control-storage') return;
    await this.repository.recordHeartbeat(nodeId, service, new Date(this.clock.now()));
  }

  /** Which manual address an endpoint token names: looked up by its SHA-256, then compared in constant time. */
  async resolveEndpoint(token: string): Promise<ResolveEndpointResponse> {
    const found = await this.repository.findEndpointByTokenHash(tokenSha256(token));
    if (!found || !secretsEqual(token, found.endpointToken)) return { found: false };
    return { found: true, nodeId: found.nodeId, disabled: found.disabled };
  }
}
