import type { Kysely } from 'kysely';
import {
  defaultLibraryAccessPolicySchema,
  libraryAccessAnswerSchema,
  adminBrandingResponseSchema,
  defaultNodeAccessPolicyResponseSchema,
  defaultNodeAccessPolicySchema,
  defaultQuotaPolicyResponseSchema,
  defaultQuotaPolicySchema,
  logoFileParamsSchema,
  setLogoRequestSchema,
  updateBrandingRequestSchema,
} from '@svc/contracts';
import type { Clock } from '../../platform/cache/index.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { GatewayRule } from '../../platform/http/route-auth.js';
import { brandingTransactor, BrandingSettingsService } from './branding-settings.service.js';
import { DefaultPoliciesService } from './default-policies.service.js';
import type { UploadedImages } from './logo-uploads.client.js';
import { actorOf } from './request-actor.js';
import type { UserDatabase } from './user.db.js';
import type { UserServices } from './user-services.js';

const SETTINGS_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['settings'] };

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
  const config = { auth: { gateway: SETTINGS_ADMIN } };

  app.get(
    '/api/auth/admin/branding',
    { config, schema: { response: { 200: adminBrandingResponseSchema } } },
    async () => branding.admin(),
  );
  app.put(
    '/api/auth/admin/branding',
    { config, schema: { body: updateBrandingRequestSchema, response: { 200: adminBrandingResponseSchema } } },
    async (request) => branding.setSystemName(actorOf(request), request.body.systemName),
  );
  app.put(
    '/api/auth/admin/branding/logo',
    { config, schema: { body: setLogoRequestSchema, response: { 200: adminBrandingResponseSchema } } },
    async (request) => branding.setLogo(actorOf(request), request.body),
  );
  // The saved logo image, before sign-in (login page, favicon). Sandboxed and never sniffed by browsers.
  app.get(
    '/api/auth/branding/logo/:file',
    { config: { auth: { gateway: { kind: 'public' } } }, schema: { params: logoFileParamsSchema } },
    async (request, reply) => {
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
    },
  );

  app.get(
    '/api/auth/admin/traffic-quotas/default-policy',
    { config, schema: { response: { 200: defaultQuotaPolicyResponseSchema } } },
    async () => policies.quotaPolicy(),
  );
  app.put(
    '/api/auth/admin/traffic-quotas/default-policy',
    {
      config,
      schema: { body: defaultQuotaPolicySchema, response: { 200: defaultQuotaPolicyResponseSchema } },
    },
    async (request) => policies.setQuotaPolicy(actorOf(request), request.body),
  );
  app.get(
    '/api/auth/admin/node-access-policy',
    { config, schema: { response: { 200: defaultNodeAccessPolicyResponseSchema } } },
    async () => policies.nodeAccessPolicy(),
  );
  app.put(
    '/api/auth/admin/node-access-policy',
    {
      config,
      schema: {
        body: defaultNodeAccessPolicySchema,
        response: { 200: defaultNodeAccessPolicyResponseSchema },
      },
    },
    async (request) => policies.setNodeAccessPolicy(actorOf(request), request.body),
  );
  app.get(
    '/api/auth/admin/library-access-policy',
    { config, schema: { response: { 200: libraryAccessAnswerSchema } } },
    async () => policies.libraryAccessPolicy(),
  );
  app.put(
    '/api/auth/admin/library-access-policy',
    {
      config,
      schema: { body: defaultLibraryAccessPolicySchema, response: { 200: libraryAccessAnswerSchema } },
    },
    async (request) => policies.setLibraryAccessPolicy(actorOf(request), request.body),
  );
  return { branding, policies };
}
