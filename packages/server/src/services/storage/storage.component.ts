import path from 'node:path';
import { registryAuditClient } from '../../platform/audit/audit-client.js';
import { createServer } from '../../platform/http/create-server.js';
import type { Component, ComponentFactory, RuntimeContext } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { createScheduler, openOwnedDatabase } from '../../runtime/owned-database.js';
import { registerNodeLifecycleRoutes } from '../shared/node-lifecycle.routes.js';
import { registerFileRoutes } from './files/files.routes.js';
import { registerInternalRoutes } from './internal/internal.routes.js';
import { storageMigrations } from './migrations/index.js';
import { registerDriveAccountRoutes } from './drives/drive-accounts.routes.js';
import { registerMountRoutes } from './mounts/mounts.routes.js';
import { createStorageServices, type StorageServices } from './storage-services.js';
import type { StorageDatabase } from './storage.db.js';
import { registerTransferRoutes } from './transfers/transfers.routes.js';
import { registerUploadRoutes } from './uploads/uploads.routes.js';
import { registerUsageRoutes } from './usage/usage.routes.js';

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
    const services = createStorageServices(database.db, {
      dataDir: context.settings.dataDir,
      stagingDir: path.join(context.settings.dataDir, 'storage', 'uploads'),
      clock: context.clock,
      logger,
      audit: registryAuditClient({ ...context, logger }),
      ffprobe: options.ffprobe,
      transferConcurrency: options.transferConcurrency ?? 2,
      eventHeartbeatMs: options.eventHeartbeatMs,
    });
    const { mounts, files, transfers, transferEvents, uploads, probe, probeTool, usage, audit } = services;

    try {
      await probeTool.detect();
      const app = createServer({
        serviceToken: context.serviceToken,
        component: 'storage',
        logger,
        healthPaths: ['/api/storage/ping'],
        healthChecks: async () => ({
          database: (await services.health.reachable()) ? 'UP' : 'DOWN',
          probe: probeTool.status().available ? 'UP' : 'DEGRADED',
        }),
      });
      registerMountRoutes(app, mounts, audit);
      registerDriveAccountRoutes(app, services.driveAccounts, audit);
      registerFileRoutes(app, files, mounts, audit);
      registerTransferRoutes(app, transfers, transferEvents, files, audit);
      registerUsageRoutes(app, usage);
      registerInternalRoutes(app, mounts, files, probe);
      await registerUploadRoutes(app, uploads, files, audit);
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
          await services.cleanup.run(signal);
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
          await services.release();
          await scheduler.stop();
          await database.close();
        },
      };
    } catch (error) {
      await services.release().catch(() => undefined);
      await database.close();
      throw error;
    }
  };
}

/** Storage node (18084): mounts, file management and transfers, database yiyi_storage. */
export const createStorageComponent: ComponentFactory = storageComponentFactory();
