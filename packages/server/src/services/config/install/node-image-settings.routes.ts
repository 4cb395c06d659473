import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodeImageSettingsService } from './node-image-settings.service.js';

export function registerNodeImageSettingsRoutes(
  app: AppServer,
  images: NodeImageSettingsService,
  audit: AuditClient,
): void {
  serve(app, endpoints.config.getNodeImageSettings, async () => images.get());
  serve(app, endpoints.config.updateNodeImageSettings, async (request) =>
    audit.recordChange(
      request,
      { action: 'settings.node-image', target: { type: 'setting', id: 'node-image' } },
      () => images.get(),
      () => images.set(request.body),
    ),
  );
}
