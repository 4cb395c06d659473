import type { FastifyReply } from 'fastify';
import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import { LoginLockedError, type AuthService } from './auth.service.js';
import type { BrandingService } from './branding.service.js';
import { identityOf } from './request-actor.js';
import type { SetupService } from './setup.service.js';

/** Adds Retry-After to a 429 LOGIN_LOCKED before the error handler writes the body. */
export const retryAfter =
  (reply: FastifyReply) =>
  (error: unknown): never => {
    if (error instanceof LoginLockedError) void reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  };

export function registerAuthRoutes(
  app: AppServer,
  services: { auth: AuthService; setup: SetupService; branding: BrandingService },
): void {
  const { auth, setup, branding } = services;
  const user = endpoints.user;

  serve(app, user.getSetupStatus, async () => setup.status());
  serve(app, user.createFirstAdmin, async (request) => ({
    user: await setup.createFirstAdmin(request.body, request.clientIp),
  }));
  serve(app, user.login, async (request, reply) =>
    auth.login(request.body, request.clientIp).catch(retryAfter(reply)),
  );
  serve(app, user.logout, async (request, reply) => {
    await auth.logout(identityOf(request));
    return reply.send();
  });
  serve(app, user.getMe, async (request) => auth.me(identityOf(request)));
  serve(app, user.changeMyPassword, async (request, reply) => {
    await auth.changePassword(identityOf(request), request.body, request.clientIp).catch(retryAfter(reply));
    return reply.send();
  });
  serve(app, user.getBranding, async () => branding.get());
}
