import { createServer } from '../../platform/http/create-server.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import type { ConfigDatabase } from './config.db.js';
import { configMigrations } from './config.migrations.js';
import { DeploymentRepository } from './deployment.repository.js';
import { DeploymentService } from './deployment.service.js';
import { registerDeploymentRoutes } from './deployment.routes.js';
import { RegistryRepository } from './registry.repository.js';
import { RegistryService } from './registry.service.js';
import { registerRegistryRoutes } from './registry.routes.js';
import { NodesRepository } from './nodes.repository.js';
import { registerNodeDirectoryRoutes } from './nodes.routes.js';

/** Config service (18085): registry of services and nodes, deployment and licence facts. */
export const createConfigComponent: ComponentFactory = async (context) => {
  const database = await openOwnedDatabase<ConfigDatabase>(context, 'svc_config', configMigrations);
  const registry = new RegistryService(new RegistryRepository(database.db));
  const deployment = new DeploymentService(new DeploymentRepository(database.db), {
    storage: context.settings.embeddedStorageNodeId,
    playAgent: context.settings.embeddedPlayAgentNodeId,
  });

  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'config',
    logger: context.logger.child({ component: 'config' }),
    healthPaths: ['/actuator/health'],
    healthChecks: async () => ({ database: await databaseCheck(() => deployment.capabilities()) }),
  });
  registerRegistryRoutes(app, registry);
  const nodes = new NodesRepository(database.db);
  registerNodeDirectoryRoutes(app, nodes);
  // The built-in nodes exist in every install: standalone runs them, and they stay after an edition upgrade.
  await nodes.ensure({
    nodeId: context.settings.embeddedStorageNodeId,
    serviceType: 'svc-control-storage',
    name: 'Built-in storage',
    scope: 'EMBEDDED',
  });
  await nodes.ensure({
    nodeId: context.settings.embeddedPlayAgentNodeId,
    serviceType: 'svc-play-agent',
    name: 'Built-in play-agent',
    scope: 'EMBEDDED',
  });
  registerDeploymentRoutes(app, deployment);

  const scheduler = createScheduler(context, 'config', database);
  scheduler.register({
    name: 'registry.prune',
    schedule: { everyMs: 60 * 60 * 1000 },
    run: async () => {
      await registry.prune();
    },
  });

  return {
    name: 'config',
    app,
    host: bindHostFor(context, 'config'),
    port: context.settings.ports.config,
    start: () => scheduler.start(),
    stop: async () => {
      await scheduler.stop();
      await database.close();
    },
  };
};

export async function databaseCheck(probe: () => Promise<unknown>): Promise<'UP' | 'DOWN'> {
  try {
    await probe();
    return 'UP';
  } catch {
    return 'DOWN';
  }
}
