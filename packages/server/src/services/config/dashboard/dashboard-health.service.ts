import type { DashboardHealthResponse, InstanceHealth, NodeHealth } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { NodeManagementService } from '../nodes/node-management.service.js';
import type { RegistryRepository } from '../registry/registry.repository.js';
import { INSTANCE_LIVENESS_MS, INSTANCE_RETENTION_MS } from '../registry/registry.service.js';

export interface DashboardHealthDeps {
  /** The registry's records (every instance seen within the retention window, alive or not). */
  registry: Pick<RegistryRepository, 'listSeenSince'>;
  /** The node list, with the status it derives (PENDING, ONLINE, offline). */
  nodes: Pick<NodeManagementService, 'list'>;
  clock: Clock;
}

/**
 * The dashboard's health overview: the listeners the registry knows (up while their heartbeat is younger
 * than the registry's liveness window, else down until registry.prune drops them after a day) and the node
 * records with the status the node list shows, plus counts by state. Everything is read when asked.
 */
export class DashboardHealthService {
  constructor(private readonly deps: DashboardHealthDeps) {}

  async health(): Promise<DashboardHealthResponse> {
    const now = this.deps.clock.now();
    const [records, nodeList] = await Promise.all([
      this.deps.registry.listSeenSince({}, new Date(now - INSTANCE_RETENTION_MS)),
      this.deps.nodes.list(),
    ]);
    const instances: InstanceHealth[] = records
      .map((record) => ({
        service: record.service,
        instanceId: record.instanceId,
        nodeId: record.nodeId,
        baseUrl: record.baseUrl,
        status:
          Date.parse(record.lastSeenAt) >= now - INSTANCE_LIVENESS_MS ? ('up' as const) : ('down' as const),
        registeredAt: record.registeredAt,
        lastHeartbeatAt: record.lastSeenAt,
      }))
      .sort((a, b) => a.service.localeCompare(b.service) || a.instanceId.localeCompare(b.instanceId));
    const nodes: NodeHealth[] = nodeList.nodes.map((node) => ({
      nodeId: node.nodeId,
      name: node.name,
      serviceType: node.serviceType,
      scope: node.scope,
      status: node.status,
      disabled: node.disabled,
      lastHeartbeatAt: node.lastHeartbeatAt,
      externalAddress: node.externalAddress,
    }));
    const countNodes = (status: NodeHealth['status']) =>
      nodes.filter((node) => node.status === status).length;
    return {
      checkedAt: new Date(now).toISOString(),
      instances,
      nodes,
      counts: {
        instances: {
          up: instances.filter((instance) => instance.status === 'up').length,
          down: instances.filter((instance) => instance.status === 'down').length,
        },
        nodes: {
          PENDING: countNodes('PENDING'),
          ONLINE: countNodes('ONLINE'),
          offline: countNodes('offline'),
          AWAITING_INSTALL: countNodes('AWAITING_INSTALL'),
        },
      },
    };
  }
}
