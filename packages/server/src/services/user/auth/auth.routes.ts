import type { FastifyReply } from 'fastify';
import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { LoginLockedError, type AuthService } from './auth.service.js';
import { identityOf } from '../request-actor.js';
import type { SetupService } from '../accounts/setup.service.js';

/** Adds Retry-After to a 429 LOGIN_LOCKED before the error handler writes the body. */
export const retryAfter =
  (reply: FastifyReply) =>
  (error: unknown): never => {
    if (error instanceof LoginLockedError) void reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  };

export function registerAuthRoutes(
  app: AppServer,
  services: { auth: AuthService; setup: SetupService },
): void {
  const { auth, setup } = services;
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
}

/** Token introspection for the other services (service token only; never routed by the gateway). */
export function registerIntrospectionRoute(app: AppServer, auth: AuthService): void {
  serve(app, endpoints.user.introspect, async (request) => auth.introspect(request.body));
}
