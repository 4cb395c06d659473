import type { Kysely } from 'kysely';
import { endpoints } from '@svc/contracts';
import type { Clock } from '../../platform/cache/index.js';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import { brandingTransactor, BrandingSettingsService } from './branding-settings.service.js';
import { DefaultPoliciesService } from './default-policies.service.js';
import type { UploadedImages } from './logo-uploads.client.js';
import { actorOf } from './request-actor.js';
import type { UserDatabase } from './user.db.js';
import type { UserServices } from './user-services.js';

/** Stored logos are addressed by their content hash: a new image gets a new address. */
const LOGO_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The system configuration page's user-service endpoints (docs/settings.md): system name, logo and its
 * public image route, default quota and node access policies for new users.
 */
export function registerSettingsRoutes(
  app: AppServer,
  parts: {
    services: Pick<UserServices, 'branding' | 'defaults' | 'repositories'>;
    db: Kysely<UserDatabase>;
    uploads: UploadedImages;
    clock: Clock;
  },
): { branding: BrandingSettingsService; policies: DefaultPoliciesService } {
  const { services } = parts;
  const branding = new BrandingSettingsService({
    branding: services.branding,
    accounts: services.repositories.accounts,
    settings: services.repositories.settings,
    transact: brandingTransactor(parts.db),
    uploads: parts.uploads,
    clock: parts.clock,
  });
  const policies = new DefaultPoliciesService({
    defaults: services.defaults,
    accounts: services.repositories.accounts,
  });
  const user = endpoints.user;

  serve(app, user.getAdminBranding, async () => branding.admin());
  serve(app, user.updateBranding, async (request) =>
    branding.setSystemName(actorOf(request), request.body.systemName),
  );
  serve(app, user.setLogo, async (request) => branding.setLogo(actorOf(request), request.body));
  // The saved logo image, before sign-in (login page, favicon). Sandboxed and never sniffed by browsers.
  serve(app, user.getLogoFile, async (request, reply) => {
    const image = await branding.logoFile(request.params.file);
    const etag = `"${image.sha256}"`;
    void reply
      .header('cache-control', LOGO_CACHE_CONTROL)
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox");
    const match = request.headers['if-none-match'];
    if (
      typeof match === 'string' &&
      match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
    ) {
      return reply.status(304).send();
    }
    return reply
      .header('content-type', image.contentType)
      .header('content-disposition', `inline; filename="logo.${request.params.file.split('.')[1]}"`)
      .send(image.bytes);
  });

  serve(app, user.getDefaultQuotaPolicy, async () => policies.quotaPolicy());
  serve(app, user.setDefaultQuotaPolicy, async (request) =>
    policies.setQuotaPolicy(actorOf(request), request.body),
  );
  serve(app, user.getDefaultNodeAccessPolicy, async () => policies.nodeAccessPolicy());
  serve(app, user.setDefaultNodeAccessPolicy, async (request) =>
    policies.setNodeAccessPolicy(actorOf(request), request.body),
  );
  serve(app, user.getDefaultLibraryAccessPolicy, async () => policies.libraryAccessPolicy());
  serve(app, user.setDefaultLibraryAccessPolicy, async (request) =>
    policies.setLibraryAccessPolicy(actorOf(request), request.body),
  );
  return { branding, policies };
}
