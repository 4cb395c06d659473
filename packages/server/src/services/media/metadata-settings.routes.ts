import { metadataProviderSettingsSchema, updateMetadataProviderRequestSchema } from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import { identityOf } from '../../platform/http/route-auth.js';
import type { MetadataSettingsService } from './metadata-settings.service.js';

/** The metadata provider's settings (console permission `settings`). */
export function registerMetadataSettingsRoutes(
  app: AppServer,
  settings: MetadataSettingsService,
  audit: AuditClient,
): void {
  const config = { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } } as const;
  app.get(
    '/api/media/settings/metadata-provider',
    { config, schema: { response: { 200: metadataProviderSettingsSchema } } },
    async () => settings.get(),
  );
  app.put(
    '/api/media/settings/metadata-provider',
    {
      config,
      schema: {
        body: updateMetadataProviderRequestSchema,
        response: { 200: metadataProviderSettingsSchema },
      },
    },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'settings.metadata-provider', target: { type: 'setting', id: 'metadata-provider' } },
        () => settings.get(),
        () => settings.update(request.body, identityOf(request)),
      ),
  );
}
