import { metadataProviderSettingsSchema, updateMetadataProviderRequestSchema } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { identityOf } from '../../platform/http/route-auth.js';
import type { MetadataSettingsService } from './metadata-settings.service.js';

/** The metadata provider's settings (console permission `settings`). */
export function registerMetadataSettingsRoutes(app: AppServer, settings: MetadataSettingsService): void {
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
    async (request) => settings.update(request.body, identityOf(request)),
  );
}
