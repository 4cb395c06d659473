import type { Generated } from 'kysely';

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
}

export type NodeServiceType = 'svc-control-storage' | 'svc-play-agent' | 'manual-play-agent-endpoint';

export interface NodesTable {
  node_id: string;
  service_type: NodeServiceType;
  name: string;
  scope: 'EMBEDDED' | 'EXTERNAL';
  status: Generated<'PENDING' | 'ONLINE' | 'offline'>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ConfigDatabase {
  service_instances: ServiceInstancesTable;
  deployment_state: DeploymentStateTable;
  nodes: NodesTable;
}
