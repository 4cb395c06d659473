import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { ifNoneMatchMatches } from '../../../platform/http/file-delivery/conditional.js';
import { inlineDisposition } from '../../../platform/http/file-delivery/disposition.js';
import { actorOf, identityOf } from '../request-actor.js';
import type { BrandingSettingsService } from './branding-settings.service.js';
import type { BrandingService } from './branding.service.js';
import type { WebPlaybackService } from './web-playback.service.js';

/** Stored logos are addressed by their content hash: a new image gets a new address. */
const LOGO_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Branding and web playback (docs/settings.md): the public branding and logo image shown before sign-in, the
 * system configuration page's system name, logo and web playback switch, and the portal's own web playback.
 */
export function registerBrandingRoutes(
  app: AppServer,
  services: { branding: BrandingService; settings: BrandingSettingsService; webPlayback: WebPlaybackService },
): void {
  const { settings, webPlayback } = services;
  const user = endpoints.user;

  serve(app, user.getBranding, async () => services.branding.get());
  serve(app, user.getAdminBranding, async () => settings.admin());
  serve(app, user.updateBranding, async (request) =>
    settings.setSystemName(actorOf(request), request.body.systemName),
  );
  serve(app, user.setLogo, async (request) => settings.setLogo(actorOf(request), request.body));
  // The saved logo image, before sign-in (login page, favicon). Sandboxed and never sniffed by browsers.
  serve(app, user.getLogoFile, async (request, reply) => {
    const image = await settings.logoFile(request.params.file);
    const etag = `"${image.sha256}"`;
    void reply
      .header('cache-control', LOGO_CACHE_CONTROL)
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox");
    const match = request.headers['if-none-match'];
    if (typeof match === 'string' && ifNoneMatchMatches(match, etag)) return reply.status(304).send();
    return reply
      .header('content-type', image.contentType)
      .header('content-disposition', inlineDisposition(`logo.${request.params.file.split('.')[1]}`))
      .send(image.bytes);
  });
  serve(app, user.setWebPlayer, async (request) =>
    webPlayback.setSystemEnabled(actorOf(request), request.body.enabled),
  );
  serve(app, user.getMyWebPlayback, async (request) => webPlayback.forAccount(identityOf(request)));
}
