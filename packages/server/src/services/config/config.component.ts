import { handOverToCluster } from './cluster/cluster.component.js';
import { registerDiagnosticsRoutes } from './diagnostics/diagnostics.routes.js';
import { DiagnosticsRuns } from './diagnostics/diagnostics-runs.js';
import { DiagnosticsService } from './diagnostics/diagnostics.service.js';
import type { Dispatcher } from 'undici';
import type { ProbeClientOptions } from '../../doctor/http-probe.js';
import { AuditClient, newestBaseUrl } from '../../platform/audit/audit-client.js';
import type { ServiceDatabase } from '../../platform/db/index.js';
import { createServer } from '../../platform/http/create-server.js';
import { SVC_VERSION } from '../../platform/version.js';
import { bindHostFor } from '../../runtime/bind.js';
import type { ComponentFactory, RuntimeContext } from '../../runtime/component.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import { SystemSettingsRepository } from '../shared/system-settings.repository.js';
import type { ConfigDatabase } from './config.db.js';
import { DashboardHealthService } from './dashboard/dashboard-health.service.js';
import { registerDashboardRoutes } from './dashboard/dashboard.routes.js';
import { DashboardSetupService } from './dashboard/dashboard-setup.service.js';
import { HttpSetupFactSources } from './dashboard/setup-facts.client.js';
import { DeploymentRepository } from './deployment/deployment.repository.js';
import { registerDeploymentRoutes } from './deployment/deployment.routes.js';
import { DeploymentService } from './deployment/deployment.service.js';
import { registerLegacyNodesRoutes } from './deployment/legacy-nodes.routes.js';
import { LegacyNodesService } from './deployment/legacy-nodes.service.js';
import { registerBinaryRoutes } from './install/binaries.routes.js';
import { registerNodeImageSettingsRoutes } from './install/node-image-settings.routes.js';
import { NodeImageSettingsService } from './install/node-image-settings.service.js';
import { BinariesService, bundledBinariesDir } from './install/binaries.service.js';
import { nodeInstallBaseUrl } from './install/install-base-url.js';
import { InstallRepository } from './install/install.repository.js';
import { registerNodeInstallRoutes } from './install/install.routes.js';
import { NodeInstallService } from './install/install.service.js';
import { parsePublicKey } from './licenses/lease.js';
import type { LicenseGate } from './licenses/license-gate.js';
import { registerLicenseRoutes } from './licenses/license.routes.js';
import { LicenseService } from './licenses/license.service.js';
import { LicensesRepository } from './licenses/licenses.repository.js';
import { registerMcpSettingsRoutes } from './mcp/mcp-settings.routes.js';
import { McpSettingsService } from './mcp/mcp-settings.service.js';
import { configMigrations } from './migrations/index.js';
import { ManualAddressProber, MANUAL_PROBE_INTERVAL_MS } from './nodes/manual-address-probe.js';
import { ManualEndpointsRepository } from './nodes/manual-endpoints.repository.js';
import { HttpNodeLifecycleSender } from './nodes/node-lifecycle.client.js';
import { NodeProbeClient } from './nodes/node-probe.client.js';
import { registerNodeProbeRoutes } from './nodes/node-probe.routes.js';
import { NodeLifecycleService } from './nodes/node-lifecycle.service.js';
import { registerNodeManagementRoutes } from './nodes/node-management.routes.js';
import { NodeManagementService } from './nodes/node-management.service.js';
import { NodeViews } from './nodes/node-views.js';
import { HttpCacheDriveSource } from './node-cache/cache-drives.client.js';
import { NodeCacheClient } from './node-cache/node-cache.client.js';
import { NodeCacheConfigsRepository } from './node-cache/node-cache.repository.js';
import { registerNodeCacheConfigRoutes } from './node-cache/node-cache.routes.js';
import { registerNodeCdnRoutes } from './node-cache/node-cdn.routes.js';
import { NodeCacheService } from './node-cache/node-cache.service.js';
import { NodesRepository } from './nodes/nodes.repository.js';
import { registerNodeDirectoryRoutes } from './nodes/nodes.routes.js';
import { NodesService } from './nodes/nodes.service.js';
import { registerPlayAgentPolicyRoutes } from './play-agent-policy/play-agent-policy.routes.js';
import { PlayAgentPolicyService } from './play-agent-policy/play-agent-policy.service.js';
import { HttpPlaybackPolicySource } from './playback-routes/playback-policy.client.js';
import { registerPlaybackRoutesRoutes } from './playback-routes/playback-routes.routes.js';
import { PlaybackRoutesService } from './playback-routes/playback-routes.service.js';
import { RegistryRepository } from './registry/registry.repository.js';
import { registerRegistryRoutes } from './registry/registry.routes.js';
import { RegistryService } from './registry/registry.service.js';
import { registerImageUploadRoutes } from './uploads/image-uploads.routes.js';
import { ImageUploadsRepository } from './uploads/image-uploads.repository.js';
import { ImageUploadsService } from './uploads/image-uploads.service.js';

export interface ConfigComponentOptions {
  /** Hands the open database and the node records to a test (to seed manual addresses, read tokens). */
  expose?: (parts: ConfigParts) => void;
  /** Licence facts for node creation (tests pass a fake); the LicenseService by default. */
  licenseGate?: LicenseGate;
  /** HTTP client of the manual addresses' /health probe (tests trust their own CA); undici's global one by default. */
  probeDispatcher?: Dispatcher;
  /** HTTP client settings of the Diagnostics page's probes (tests: their CA and name overrides). */
  diagnosticsClient?: ProbeClientOptions;
}

export interface ConfigParts {
  database: ServiceDatabase<ConfigDatabase>;
  nodes: NodesRepository;
  manualEndpoints: ManualEndpointsRepository;
  /** The licence facts (node creation calls refresh() first). */
  licenses: LicenseService;
}

/** Every repository of the config database, each made once. */
function createRepositories(database: ServiceDatabase<ConfigDatabase>) {
  const db = database.db;
  return {
    deployment: new DeploymentRepository(db),
    install: new InstallRepository(db),
    licenses: new LicensesRepository(db),
    manualEndpoints: new ManualEndpointsRepository(db),
    nodes: new NodesRepository(db),
    nodeCacheConfigs: new NodeCacheConfigsRepository(db),
    registry: new RegistryRepository(db),
    settings: new SystemSettingsRepository(db),
    uploads: new ImageUploadsRepository(db),
  };
}
type ConfigRepositories = ReturnType<typeof createRepositories>;

/** Every service of the config service, from the repositories and the process's settings. */
function createServices(
  context: RuntimeContext,
  repositories: ConfigRepositories,
  options: ConfigComponentOptions,
) {
  const { clock, serviceToken, settings } = context;
  const logger = context.logger.child({ component: 'config' });
  const embeddedNodes = {
    storage: settings.embeddedStorageNodeId,
    playAgent: settings.embeddedPlayAgentNodeId,
  };
  const configUrl = nodeInstallBaseUrl(settings);
  // The images of container installs: the console's setting, each field defaulting to its environment variable.
  const nodeImages = new NodeImageSettingsService(
    repositories.settings,
    { image: settings.nodeImage, imageFfmpeg: settings.nodeImageFfmpeg },
    clock,
  );
  const nodes = new NodesService(repositories.nodes, clock);
  const registry = new RegistryService(repositories.registry, nodes, serviceToken);
  const newestUserService = async () => newestBaseUrl(await registry.liveInstances({ service: 'svc-user' }));
  // The config service keeps the registry itself, so it reads the live instances directly.
  const audit = new AuditClient({ userService: newestUserService, serviceToken, logger });
  const licenses = new LicenseService({
    licenses: repositories.licenses,
    deployment: repositories.deployment,
    publicKey: settings.licensePublicKey ? parsePublicKey(settings.licensePublicKey) : null,
    clock,
    audit: { record: (entry) => audit.deliver(entry) },
    logger,
  });
  const views = new NodeViews({
    clock,
    configUrl,
    registeredPlayAgents: () => registry.newestNodeAddresses('svc-play-agent'),
    publicHost: settings.publicHost,
    edition: () => repositories.nodes.edition(),
  });
  const nodeManagement = new NodeManagementService({
    nodes: repositories.nodes,
    manualEndpoints: repositories.manualEndpoints,
    licence: options.licenseGate ?? licenses,
    clock,
    views,
  });
  return {
    audit,
    nodes,
    registry,
    licenses,
    nodeManagement,
    deployment: new DeploymentService(repositories.deployment, embeddedNodes, licenses),
    legacyNodes: new LegacyNodesService({ nodes: repositories.nodes, embeddedNodes, clock }),
    policy: new PlayAgentPolicyService(repositories.settings, clock),
    mcp: new McpSettingsService(repositories.settings, clock),
    uploads: new ImageUploadsService(repositories.uploads, clock),
    nodeLifecycle: new NodeLifecycleService({
      nodes: repositories.nodes,
      clock,
      lifecycle: new HttpNodeLifecycleSender(
        (nodeId) => repositories.registry.newestAddressOf(nodeId),
        serviceToken,
      ),
    }),
    nodeCache: new NodeCacheService({
      configs: repositories.nodeCacheConfigs,
      nodes: repositories.nodes,
      client: new NodeCacheClient((nodeId) => repositories.registry.newestAddressOf(nodeId), serviceToken),
      drives: new HttpCacheDriveSource((filter) => registry.liveInstances(filter), serviceToken),
      clock,
      logger,
    }),
    playbackRoutes: new PlaybackRoutesService({
      nodes: repositories.nodes,
      clock,
      views,
      playbackPolicies: new HttpPlaybackPolicySource(newestUserService, serviceToken),
    }),
    dashboardHealth: new DashboardHealthService({
      registry: repositories.registry,
      nodes: nodeManagement,
      clock,
    }),
    dashboardSetup: new DashboardSetupService({
      nodes: nodeManagement,
      facts: new HttpSetupFactSources((filter) => registry.liveInstances(filter), serviceToken),
    }),
    nodeImages,
    install: new NodeInstallService(repositories.install, {
      configUrl,
      serviceToken,
      images: () => nodeImages.images(),
      version: SVC_VERSION,
    }),
    binaries: new BinariesService(repositories.install, {
      binariesDir: settings.binariesDir,
      bundledBinariesDir: bundledBinariesDir(),
      controlVersion: SVC_VERSION,
      images: () => nodeImages.images(),
    }),
    prober: new ManualAddressProber({
      manualEndpoints: repositories.manualEndpoints,
      clock,
      logger,
      dispatcher: options.probeDispatcher,
    }),
  };
}

/**
 * Config service (18085): registry of services and nodes, deployment and licence facts. The composition root:
 * repositories, then services, then routes (each given the services it uses) and tasks.
 */
export const configComponentFactory =
  (options: ConfigComponentOptions = {}): ComponentFactory =>
  async (context) => {
    const database = await openOwnedDatabase<ConfigDatabase>(context, 'svc_config', configMigrations);
    const repositories = createRepositories(database);
    const services = createServices(context, repositories, options);
    const { audit } = services;
    handOverToCluster(context, { database, licence: options.licenseGate ?? services.licenses });

    const app = createServer({
      serviceToken: context.serviceToken,
      component: 'config',
      logger: context.logger.child({ component: 'config' }),
      healthPaths: ['/actuator/health'],
      healthChecks: async () => ({ database: await databaseCheck(() => services.deployment.capabilities()) }),
    });
    registerRegistryRoutes(app, services.registry);
    registerNodeDirectoryRoutes(app, services.nodes);
    registerPlayAgentPolicyRoutes(app, services.policy, audit);
    registerMcpSettingsRoutes(app, services.mcp, audit);
    // Logo uploads of the system configuration page (docs/settings.md).
    await registerImageUploadRoutes(app, services.uploads);
    // The built-in nodes exist in every install: standalone runs them, and they stay after an edition upgrade.
    await repositories.nodes.ensure({
      nodeId: context.settings.embeddedStorageNodeId,
      serviceType: 'svc-control-storage',
      name: 'Built-in storage',
      scope: 'EMBEDDED',
    });
    await repositories.nodes.ensure({
      nodeId: context.settings.embeddedPlayAgentNodeId,
      serviceType: 'svc-play-agent',
      name: 'Built-in play-agent',
      scope: 'EMBEDDED',
    });
    registerDeploymentRoutes(app, services.deployment);
    registerDiagnosticsRoutes(
      app,
      {
        diagnostics: new DiagnosticsService(services.nodeManagement),
        runs: new DiagnosticsRuns({
          nodes: async () => (await services.nodeManagement.list()).nodes,
          cache: context.cache,
          clock: context.clock,
          logger: context.logger.child({ component: 'config' }),
          ...(options.diagnosticsClient ? { client: options.diagnosticsClient } : {}),
        }),
      },
      audit,
    );
    registerLegacyNodesRoutes(app, services.legacyNodes, audit);
    registerLicenseRoutes(app, services.licenses);
    registerNodeManagementRoutes(app, services.nodeManagement, services.nodeLifecycle, audit);
    registerPlaybackRoutesRoutes(app, services.playbackRoutes);
    registerNodeCacheConfigRoutes(app, services.nodeCache, audit);
    registerNodeCdnRoutes(app, services.nodeCache);
    // A play-agent node's startup probe, answered by the node itself (docs/image-cache.md).
    registerNodeProbeRoutes(app, {
      nodes: repositories.nodes,
      client: new NodeProbeClient(
        (nodeId) => repositories.registry.newestAddressOf(nodeId),
        context.serviceToken,
      ),
    });
    registerDashboardRoutes(app, { health: services.dashboardHealth, setup: services.dashboardSetup });
    // Install scripts and node binaries (docs/node-install.md).
    registerNodeInstallRoutes(app, services.install);
    registerBinaryRoutes(app, services.binaries);
    registerNodeImageSettingsRoutes(app, services.nodeImages, audit);
    options.expose?.({
      database,
      nodes: repositories.nodes,
      manualEndpoints: repositories.manualEndpoints,
      licenses: services.licenses,
    });

    const scheduler = createScheduler(context, 'config', database);
    scheduler.register({
      name: 'registry.prune',
      schedule: { everyMs: 60 * 60 * 1000 },
      run: async () => {
        await services.registry.prune();
      },
    });
    scheduler.register({
      name: 'nodes.manual-health',
      schedule: { everyMs: MANUAL_PROBE_INTERVAL_MS },
      run: async (signal) => {
        await services.prober.probeAll(signal);
      },
    });
    // Uploaded images never saved (as the logo) are deleted after 24 hours.
    scheduler.register({
      name: 'uploads.prune',
      schedule: { everyMs: 60 * 60 * 1000 },
      run: async () => {
        await services.uploads.prune();
      },
    });
    // Audit records of licence changes that could not reach the user service at once.
    scheduler.register({
      name: 'licenses.audit-delivery',
      schedule: { everyMs: 60 * 1000 },
      run: async () => {
        await services.licenses.deliverAudits();
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
