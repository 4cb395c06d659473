import type { ComponentFactory } from '../../runtime/component.js';
import { createDatabaseService } from '../shared/database-service.component.js';
import type { StorageDatabase } from './storage.db.js';
import { storageMigrations } from './storage.migrations.js';

/** Storage node (18084): mounts, file management and transfers, database yiyi_storage. */
export const createStorageComponent: ComponentFactory = (context) =>
  createDatabaseService<StorageDatabase>(context, {
    component: 'storage',
    service: 'svc-control-storage',
    database: 'yiyi_storage',
    migrations: storageMigrations,
    port: context.settings.ports.storage,
    nodeId: context.settings.storageNodeId,
    healthPaths: ['/api/storage/ping'],
  });
