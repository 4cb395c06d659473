import { protoA } from './declarations.js';
import type { ProtocolRoutes } from './protocol.js';

/**
 * What the apps' sign-in screens ask before anyone signs in: the branding (a login disclaimer, custom
 * CSS, a splash screen) and whether Quick Connect (Jellyfin's sign-in by code) is on. There is none of
 * them here, so the answers say so rather than 404.
 */
export function registerLoginPageRoutes(routes: ProtocolRoutes): void {
  routes.anonymous(protoA.GetBrandingConfiguration, async () => ({
    LoginDisclaimer: '',
    CustomCss: '',
    SplashscreenEnabled: false,
  }));

  routes.anonymous(protoA.GetBrandingCss, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(''),
  );

  routes.anonymous(protoA.GetQuickConnectEnabled, async () => false);
}
