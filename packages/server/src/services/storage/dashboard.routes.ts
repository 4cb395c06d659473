import { storageUsageResponseSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { CONSOLE_DASHBOARD as config, type StorageServices } from './storage-services.js';

/** The console dashboard's view of this node: the space of each mount. */
export function registerDashboardRoutes(app: AppServer, { usage }: StorageServices): void {
  app.get(
    '/api/storage/dashboard/usage',
    { config, schema: { response: { 200: storageUsageResponseSchema } } },
    async (_request, reply) => reply.header('cache-control', 'no-store').send(await usage.usage()),
  );
}
