import { createServer } from '../../../platform/http/create-server.js';
import { advertisedUrl } from '../../../runtime/bind.js';
import type { ComponentFactory, RuntimeContext } from '../../../runtime/component.js';
import type { ServiceDatabase } from '../../../platform/db/index.js';
import type { ConfigDatabase } from '../config.db.js';
import type { LicenseGate } from '../licenses/license-gate.js';
import { ClusterLeaseRepository } from './cluster-lease.repository.js';
import { ClusterLicenceService } from './cluster-licence.service.js';
import { registerClusterRoutes } from './cluster.routes.js';

/** What the config component of the same process hands over: its open database and its licence facts. */
export interface ClusterHandoff {
  database: ServiceDatabase<ConfigDatabase>;
  licence: LicenseGate;
}
const handoffs = new WeakMap<RuntimeContext, ClusterHandoff>();

/** Called by the config component: the cluster listener shares its database handle (one per process). */
export function handOverToCluster(context: RuntimeContext, handoff: ClusterHandoff): void {
  handoffs.set(context, handoff);
}

export interface ClusterComponentOptions {
  /** Hands the service to a test (to halt it as a killed process would). */
  expose?: (cluster: ClusterLicenceService) => void;
}

/**
 * Cluster licence sync (18089) of a DISTRIBUTED control instance (`svc role control`, after the config
 * component): the licence lease shared through svc_config. Not part of the standalone edition.
 */
export const clusterComponentFactory =
  (options: ClusterComponentOptions = {}): ComponentFactory =>
  async (context) => {
    const handoff = handoffs.get(context);
    if (!handoff)
      throw new Error('the cluster licence sync starts after the config component of its process');
    const port = context.settings.ports.cluster;
    const url = advertisedUrl(context, port);
    const cluster = new ClusterLicenceService({
      repository: new ClusterLeaseRepository(handoff.database.db),
      licence: handoff.licence,
      instanceId: `control@${url}`,
      url,
      leaseMs: context.settings.clusterLeaseSeconds * 1000,
      logger: context.logger.child({ component: 'cluster' }),
    });
    const app = createServer({
      serviceToken: context.serviceToken,
      component: 'cluster',
      logger: context.logger.child({ component: 'cluster' }),
    });
    registerClusterRoutes(app, cluster);
    options.expose?.(cluster);
    return {
      name: 'cluster',
      app,
      // The private address of the control machine (SVC_BIND_HOST); never loopback-only, never the public side.
      host: context.settings.bindHost,
      port,
      start: () => cluster.start(),
      stop: () => cluster.stop(),
    };
  };

export const createClusterComponent: ComponentFactory = clusterComponentFactory();
