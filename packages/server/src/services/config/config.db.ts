import type { Generated } from 'kysely';
import type { SystemSettingsTable } from '../shared/system-settings.repository.js';
import type { LicenseAuditOutboxTable, LicenseCodesTable, LicensesTable } from './licenses/licenses.db.js';

export interface ServiceInstancesTable {
  service: string;
  instance_id: string;
  node_id: string | null;
  base_url: string;
  registered_at: Generated<Date>;
  last_seen_at: Date;
}

export interface DeploymentStateTable {
  id: number;
  edition: 'STANDALONE' | 'DISTRIBUTED';
  updated_at: Generated<Date>;
  /** Identity of this install that leases may be bound to (V005). */
  install_id: string | null;
}

export type NodeServiceType = 'svc-control-storage' | 'svc-play-agent' | 'manual-play-agent-endpoint';

export interface NodesTable {
  node_id: string;
  service_type: NodeServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
  /**
   * Stored state: PENDING until the first valid heartbeat, then ONLINE. 'offline' is never stored by the
   * heartbeat path: it is computed on read from last_heartbeat_at (see nodes.service.ts).
   */
  status: Generated<NodeStatus>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Install scripts and binaries (worker nodes only; null for manual addresses). Stored as is: shown again. */
  node_token: string | null;
  /** Registration heartbeat of this node (worker nodes only). Stored as is: shown again in install commands. */
  registry_token: string | null;
  /** Manual reverse-proxy addresses only: the X-SVC-Endpoint-Token value, and its SHA-256 (hex) for lookups. */
  endpoint_token: string | null;
  endpoint_token_sha256: string | null;
  last_heartbeat_at: Date | null;
  /** Play-agent only; null means the default of the service type (19090). */
  listen_port: number | null;
  expected_host: string | null;
  /** Null means the default of the service type. */
  expected_port: number | null;
  note: Generated<string>;
  /** Where users reach the node (the playback route handed to them); a manual address's own URL. */
  external_protocol: 'http' | 'https' | null;
  external_host: string | null;
  external_port: number | null;
  disabled: Generated<boolean>;
  /** Manual addresses (V006): the last outbound GET /health probe; null before the first. */
  health_status: 'online' | 'offline' | null;
  health_checked_at: Date | null;
  health_detail: string | null;
}

/** One deleted node record (V006), with what became of "send uninstall command". */
export interface NodeRemovalsTable {
  id: Generated<string>;
  node_id: string;
  service_type: NodeServiceType;
  name: string;
  removed_at: Date;
  removed_by: string | null;
  uninstall_requested: boolean;
  uninstall_result: 'not-requested' | 'not-applicable' | 'unreachable' | 'sent' | 'not-sent';
}

export type NodeStatus = 'PENDING' | 'ONLINE' | 'offline';

export interface ConfigDatabase {
  service_instances: ServiceInstancesTable;
  deployment_state: DeploymentStateTable;
  nodes: NodesTable;
  node_removals: NodeRemovalsTable;
  system_settings: SystemSettingsTable;
  licenses: LicensesTable;
  license_codes: LicenseCodesTable;
  license_audit_outbox: LicenseAuditOutboxTable;
}
