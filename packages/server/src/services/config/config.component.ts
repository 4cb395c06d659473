import type { Dispatcher } from 'undici';
import type { ServiceDatabase } from '../../platform/db/index.js';
import { createServer } from '../../platform/http/create-server.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import { SystemSettingsRepository } from '../shared/system-settings.repository.js';
import type { ConfigDatabase } from './config.db.js';
import { configMigrations } from './migrations/index.js';
import { DeploymentRepository } from './deployment/deployment.repository.js';
import { DeploymentService } from './deployment/deployment.service.js';
import { registerDeploymentRoutes } from './deployment/deployment.routes.js';
import { LegacyNodesService } from './deployment/legacy-nodes.service.js';
import { registerLegacyNodesRoutes } from './deployment/legacy-nodes.routes.js';
import { RegistryRepository } from './registry/registry.repository.js';
import { RegistryService } from './registry/registry.service.js';
import { registerRegistryRoutes } from './registry/registry.routes.js';
import { NodesRepository } from './nodes/nodes.repository.js';
import { registerNodeDirectoryRoutes } from './nodes/nodes.routes.js';
import { NodesService } from './nodes/nodes.service.js';
import { PlayAgentPolicyService } from './play-agent-policy/play-agent-policy.service.js';
import { registerPlayAgentPolicyRoutes } from './play-agent-policy/play-agent-policy.routes.js';
import { McpSettingsService } from './mcp/mcp-settings.service.js';
import { registerMcpSettingsRoutes } from './mcp/mcp-settings.routes.js';
import { ImageUploadsRepository } from './uploads/image-uploads.repository.js';
import { registerImageUploadRoutes } from './uploads/image-uploads.routes.js';
import { ImageUploadsService } from './uploads/image-uploads.service.js';
import { AuditClient, newestBaseUrl } from '../../platform/audit/audit-client.js';
import { parsePublicKey } from './licenses/lease.js';
import { LicensesRepository } from './licenses/licenses.repository.js';
import { LicenseService } from './licenses/license.service.js';
import { registerLicenseRoutes } from './licenses/license.routes.js';
import type { LicenseGate } from './licenses/license-gate.js';
import { ManualAddressProber, MANUAL_PROBE_INTERVAL_MS } from './nodes/manual-address-probe.js';
import { NodeManagementService, nodeInstallBaseUrl } from './nodes/node-management.service.js';
import { HttpNodeLifecycleSender, registeredAddress } from './nodes/node-lifecycle.client.js';
import { registerNodeManagementRoutes } from './nodes/node-management.routes.js';
import { DashboardHealthService } from './dashboard/dashboard-health.service.js';
import { registerDashboardRoutes } from './dashboard/dashboard.routes.js';
import { DashboardSetupService } from './dashboard/dashboard-setup.service.js';
import { HttpSetupFactSources } from './dashboard/setup-facts.client.js';
import { HttpPlaybackPolicySource } from './playback-routes/playback-policy.client.js';
import { SVC_VERSION } from '../../platform/version.js';
import { BinariesService } from './install/binaries.service.js';
import { registerBinaryRoutes } from './install/binaries.routes.js';
import { NodeInstallService } from './install/install.service.js';
import { registerNodeInstallRoutes } from './install/install.routes.js';

export interface ConfigComponentOptions {
  /** Hands the open database and the node records to a test (to seed manual addresses, read tokens). */
  expose?: (parts: ConfigParts) => void;
  /** Licence facts for node creation (tests pass a fake); the LicenseService by default. */
  licenseGate?: LicenseGate;
  /** HTTP client of the manual addresses' /health probe (tests trust their own CA); undici's global one by default. */
  probeDispatcher?: Dispatcher;
}

export interface ConfigParts {
  database: ServiceDatabase<ConfigDatabase>;
  nodes: NodesRepository;
  /** The licence facts (node creation calls refresh() first). */
  licenses: LicenseService;
}

/** Config service (18085): registry of services and nodes, deployment and licence facts. */
export const configComponentFactory =
  (options: ConfigComponentOptions = {}): ComponentFactory =>
  async (context) => {
    const database = await openOwnedDatabase<ConfigDatabase>(context, 'svc_config', configMigrations);
    const nodes = new NodesRepository(database.db);
    const nodesService = new NodesService(nodes, context.clock);
    const registry = new RegistryService(
      new RegistryRepository(database.db),
      nodesService,
      context.serviceToken,
    );
    // The config service keeps the registry itself, so it reads the live instances directly.
    const audit = new AuditClient({
      userService: async () => newestBaseUrl(await registry.liveInstances({ service: 'svc-user' })),
      serviceToken: context.serviceToken,
      logger: context.logger.child({ component: 'config' }),
    });
    const policy = new PlayAgentPolicyService(new SystemSettingsRepository(database.db), context.clock);
    const licenses = new LicenseService({
      licenses: new LicensesRepository(database.db),
      deployment: new DeploymentRepository(database.db),
      publicKey: context.settings.licensePublicKey ? parsePublicKey(context.settings.licensePublicKey) : null,
      clock: context.clock,
      audit: { record: (entry) => audit.deliver(entry) },
      logger: context.logger.child({ component: 'config' }),
    });
    const deployment = new DeploymentService(
      new DeploymentRepository(database.db),
      {
        storage: context.settings.embeddedStorageNodeId,
        playAgent: context.settings.embeddedPlayAgentNodeId,
      },
      licenses,
    );

    const app = createServer({
      serviceToken: context.serviceToken,
      component: 'config',
      logger: context.logger.child({ component: 'config' }),
      healthPaths: ['/actuator/health'],
      healthChecks: async () => ({ database: await databaseCheck(() => deployment.capabilities()) }),
    });
    registerRegistryRoutes(app, registry);
    registerNodeDirectoryRoutes(app, nodesService);
    registerPlayAgentPolicyRoutes(app, policy, audit);
    registerMcpSettingsRoutes(
      app,
      new McpSettingsService(new SystemSettingsRepository(database.db), context.clock),
      audit,
    );
    // Logo uploads of the system configuration page (docs/settings.md).
    const imageUploads = new ImageUploadsService(new ImageUploadsRepository(database.db), context.clock);
    await registerImageUploadRoutes(app, imageUploads);
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
    registerLegacyNodesRoutes(
      app,
      new LegacyNodesService({
        nodes,
        embeddedNodes: {
          storage: context.settings.embeddedStorageNodeId,
          playAgent: context.settings.embeddedPlayAgentNodeId,
        },
        clock: context.clock,
      }),
      audit,
    );
    registerLicenseRoutes(app, licenses);
    const nodeManagement = new NodeManagementService({
      nodes,
      licence: options.licenseGate ?? licenses,
      clock: context.clock,
      configUrl: nodeInstallBaseUrl(context.settings),
      lifecycle: new HttpNodeLifecycleSender(registeredAddress(database.db), context.serviceToken),
      registeredPlayAgents: () => registry.newestNodeAddresses('svc-play-agent'),
      publicHost: context.settings.publicHost,
      playbackPolicies: new HttpPlaybackPolicySource(async () => {
        const users = await registry.liveInstances({ service: 'svc-user' });
        return [...users].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0]?.baseUrl;
      }, context.serviceToken),
    });
    registerNodeManagementRoutes(app, nodeManagement, audit);
    registerDashboardRoutes(app, {
      health: new DashboardHealthService({
        registry: new RegistryRepository(database.db),
        nodes: nodeManagement,
        clock: context.clock,
      }),
      setup: new DashboardSetupService({
        nodes: nodeManagement,
        facts: new HttpSetupFactSources((filter) => registry.liveInstances(filter), context.serviceToken),
      }),
    });
    // Install scripts and node binaries (docs/node-install.md).
    registerNodeInstallRoutes(
      app,
      new NodeInstallService(database.db, {
        configUrl: nodeInstallBaseUrl(context.settings),
        serviceToken: context.serviceToken,
        nodeImage: context.settings.nodeImage,
        nodeImageFfmpeg: context.settings.nodeImageFfmpeg,
        version: SVC_VERSION,
      }),
    );
    registerBinaryRoutes(
      app,
      new BinariesService(database.db, {
        binariesDir: context.settings.binariesDir,
        controlVersion: SVC_VERSION,
        dockerImage: context.settings.nodeImage,
        dockerImageFfmpeg: context.settings.nodeImageFfmpeg,
      }),
    );
    options.expose?.({ database, nodes, licenses });

    const scheduler = createScheduler(context, 'config', database);
    scheduler.register({
      name: 'registry.prune',
      schedule: { everyMs: 60 * 60 * 1000 },
      run: async () => {
        await registry.prune();
      },
    });
    const prober = new ManualAddressProber({
      nodes,
      clock: context.clock,
      logger: context.logger.child({ component: 'config' }),
      dispatcher: options.probeDispatcher,
    });
    scheduler.register({
      name: 'nodes.manual-health',
      schedule: { everyMs: MANUAL_PROBE_INTERVAL_MS },
      run: async (signal) => {
        await prober.probeAll(signal);
      },
    });
    // Uploaded images never saved (as the logo) are deleted after 24 hours.
    scheduler.register({
      name: 'uploads.prune',
      schedule: { everyMs: 60 * 60 * 1000 },
      run: async () => {
        await imageUploads.prune();
      },
    });
    // Audit records of licence changes that could not reach the user service at once.
    scheduler.register({
      name: 'licenses.audit-delivery',
      schedule: { everyMs: 60 * 1000 },
      run: async () => {
        await licenses.deliverAudits();
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

export const createConfigComponent: ComponentFactory = configComponentFactory();

export async function databaseCheck(probe: () => Promise<unknown>): Promise<'UP' | 'DOWN'> {
  try {
    await probe();
    return 'UP';
  } catch {
    return 'DOWN';
  }
}
