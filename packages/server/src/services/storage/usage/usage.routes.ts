import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { StorageUsageService } from './usage.service.js';

/** The console dashboard's view of this node: the space of each mount. */
export function registerUsageRoutes(app: AppServer, usage: StorageUsageService): void {
  serve(app, endpoints.storage.getUsage, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(await usage.usage()),
  );
}
