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

export interface ConfigDatabase {
  service_instances: ServiceInstancesTable;
  deployment_state: DeploymentStateTable;
}
