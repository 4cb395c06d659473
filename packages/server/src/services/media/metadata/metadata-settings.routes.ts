import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { identityOf } from '../../../platform/http/route-auth.js';
import type { MetadataSettingsService } from './metadata-settings.service.js';

/** The metadata provider's settings (console permission `settings`). */
export function registerMetadataSettingsRoutes(
  app: AppServer,
  settings: MetadataSettingsService,
  audit: AuditClient,
): void {
  serve(app, endpoints.media.getMetadataProvider, async () => settings.get());
  serve(app, endpoints.media.updateMetadataProvider, async (request) =>
    audit.recordChange(
      request,
      { action: 'settings.metadata-provider', target: { type: 'setting', id: 'metadata-provider' } },
      () => settings.get(),
      () => settings.update(request.body, identityOf(request)),
    ),
  );
}
