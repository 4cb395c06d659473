import type { Selectable } from 'kysely';
import type { NodeServiceType, NodeStatus, NodesTable } from '../config.db.js';

// The shapes of node records as the repositories hand them out (nodes.repository.ts,
// manual-endpoints.repository.ts).

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

/** Every column of a node record but the endpoint token's hash. */
export const nodeColumns = [
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
