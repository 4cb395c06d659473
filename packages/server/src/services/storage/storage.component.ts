import path from 'node:path';
import { sql } from 'kysely';
import { registryAuditClient } from '../../platform/audit/audit-client.js';
import { createServer } from '../../platform/http/create-server.js';
import type { Component, ComponentFactory, RuntimeContext } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import { TempCleanup } from './cleanup.service.js';
import { FilesService } from './files.service.js';
import { registerNodeLifecycleRoutes } from '../shared/node-lifecycle.routes.js';
import { registerDashboardRoutes } from './dashboard.routes.js';
import { registerFileRoutes } from './files.routes.js';
import { registerInternalRoutes } from './internal.routes.js';
import { MountsRepository } from './mounts.repository.js';
import { registerMountRoutes } from './mounts.routes.js';
import { MountsService } from './mounts.service.js';
import { ProbeSource } from './probe-source.js';
import { ProbeTool } from './probe-tool.js';
import { ProbeService } from './probe.service.js';
import type { StorageDatabase } from './storage.db.js';
import { storageMigrations } from './storage.migrations.js';
import type { StorageServices } from './storage-services.js';
import { TransferEvents } from './transfer-events.js';
import { TransfersRepository } from './transfers.repository.js';
import { registerTransferRoutes } from './transfers.routes.js';
import { TransfersService } from './transfers.service.js';
import { UploadsRepository } from './uploads.repository.js';
import { registerUploadRoutes } from './uploads.routes.js';
import { UploadsService } from './uploads.service.js';
import { StorageUsageService } from './usage.service.js';

/** A storage component together with its services (tests reach into them). */
export interface StorageComponent extends Component {
  services: StorageServices;
}

export interface StorageComponentOptions {
  /** ffprobe binary (tests point it elsewhere to see the node without the tool). */
  ffprobe?: string;
  /** Transfers that run at the same time. */
  transferConcurrency?: number;
  /** Heartbeat of the transfer event stream (15 s). */
  eventHeartbeatMs?: number;
}

/** Builds the storage node with options; createStorageComponent is the production factory. */
export function storageComponentFactory(
  options: StorageComponentOptions = {},
): (context: RuntimeContext) => Promise<StorageComponent> {
  return async (context) => {
    const logger = context.logger.child({ component: 'storage' });
    const database = await openOwnedDatabase<StorageDatabase>(context, 'yiyi_storage', storageMigrations);
    const stagingDir = path.join(context.settings.dataDir, 'storage', 'uploads');
    const { clock } = context;

    const probeTool = new ProbeTool(logger, { binary: options.ffprobe });
    const probeSource = new ProbeSource(logger);
    const mountsRepository = new MountsRepository(database.db);
    const transfersRepository = new TransfersRepository(database.db);
    const uploadsRepository = new UploadsRepository(database.db);
    const mounts = new MountsService(mountsRepository, { dataDir: context.settings.dataDir }, clock, logger);
    const files = new FilesService(mounts, clock, logger);
    const transferEvents = new TransferEvents(options.eventHeartbeatMs);
    const transfers = new TransfersService(
      transfersRepository,
      mounts,
      files,
      transferEvents,
      clock,
      logger,
      options.transferConcurrency ?? 2,
    );
    const uploads = new UploadsService(uploadsRepository, mounts, files, stagingDir, clock, logger);
    const cleanup = new TempCleanup(
      mounts,
      uploads,
      uploadsRepository,
      transfersRepository,
      stagingDir,
      clock,
      logger,
    );
    const probe = new ProbeService(probeTool, probeSource, mounts);
    mounts.setUseCheck(
      async (mountId) => (await transfers.activeForMount(mountId)) || (await uploads.openForMount(mountId)),
    );
    const usage = new StorageUsageService(mounts, logger);
    const services: StorageServices = {
      mounts,
      files,
      transfers,
      transferEvents,
      uploads,
      probe,
      cleanup,
      usage,
      audit: registryAuditClient({ ...context, logger }),
    };

    const release = async () => {
      await transfers.stop();
      transferEvents.close();
      await probeSource.close();
      await mounts.close();
    };

    try {
      await probeTool.detect();
      const app = createServer({
        serviceToken: context.serviceToken,
        component: 'storage',
        logger,
        healthPaths: ['/api/storage/ping'],
        healthChecks: async () => {
          let databaseUp = true;
          try {
            await sql`SELECT 1`.execute(database.db);
          } catch {
            databaseUp = false;
          }
          return {
            database: databaseUp ? 'UP' : 'DOWN',
            probe: probeTool.status().available ? 'UP' : 'DEGRADED',
          };
        },
      });
      registerMountRoutes(app, services);
      registerFileRoutes(app, services);
      registerTransferRoutes(app, services);
      registerDashboardRoutes(app, services);
      registerInternalRoutes(app, services);
      await registerUploadRoutes(app, services);
      // Remote upgrade and uninstall of an installed storage node (docs/node-install.md).
      registerNodeLifecycleRoutes(app, {
        install: context.settings.nodeInstall,
        configBaseUrl: context.settings.configBaseUrl,
        dataDir: context.settings.dataDir,
      });

      const scheduler = createScheduler(context, 'storage', database);
      scheduler.register({
        name: 'storage.temp-cleanup',
        schedule: { everyMs: 6 * 60 * 60 * 1000 },
        run: async (signal) => {
          await cleanup.run(signal);
        },
      });
      // Interrupted transfers are settled before the listener takes requests.
      await transfers.start();

      return {
        name: 'storage',
        app,
        host: bindHostFor(context, 'storage'),
        port: context.settings.ports.storage,
        registration: {
          service: 'svc-control-storage',
          nodeId: context.settings.storageNodeId,
          // A separately installed node sends its own registry token (SVC_REGISTRY_TOKEN), not the service token.
          registryToken: context.settings.storageRegistryToken,
        },
        services,
        start: () => scheduler.start(),
        stop: async () => {
          await release();
          await scheduler.stop();
          await database.close();
        },
      };
    } catch (error) {
      await release().catch(() => undefined);
      await database.close();
      throw error;
    }
  };
}

/** Storage node (18084): mounts, file management and transfers, database yiyi_storage. */
export const createStorageComponent: ComponentFactory = storageComponentFactory();
