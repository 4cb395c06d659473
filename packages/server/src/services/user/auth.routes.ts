import type { FastifyReply } from 'fastify';
import {
  brandingResponseSchema,
  changePasswordRequestSchema,
  loginRequestSchema,
  loginResponseSchema,
  meResponseSchema,
  setupAdminRequestSchema,
  setupAdminResponseSchema,
  setupStatusResponseSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { LoginLockedError, type AuthService } from './auth.service.js';
import type { BrandingService } from './branding.service.js';
import { identityOf } from './request-actor.js';
import type { SetupService } from './setup.service.js';

/** Adds Retry-After to a 429 LOGIN_LOCKED before the error handler writes the body. */
const retryAfter =
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
  const publicRoute = { auth: { gateway: { kind: 'public' } } } as const;
  const accountRoute = { auth: { gateway: { kind: 'account' } } } as const;

  app.get(
    '/api/auth/setup/status',
    { config: publicRoute, schema: { response: { 200: setupStatusResponseSchema } } },
    async () => setup.status(),
  );
  app.post(
    '/api/auth/setup/admin',
    {
      config: publicRoute,
      schema: { body: setupAdminRequestSchema, response: { 201: setupAdminResponseSchema } },
    },
    async (request, reply) =>
      reply.status(201).send({ user: await setup.createFirstAdmin(request.body, request.clientIp) }),
  );
  app.post(
    '/api/auth/login',
    { config: publicRoute, schema: { body: loginRequestSchema, response: { 200: loginResponseSchema } } },
    async (request, reply) => auth.login(request.body, request.clientIp).catch(retryAfter(reply)),
  );
  app.post('/api/auth/logout', { config: accountRoute }, async (request, reply) => {
    await auth.logout(identityOf(request));
    return reply.status(204).send();
  });
  app.get(
    '/api/auth/me',
    { config: accountRoute, schema: { response: { 200: meResponseSchema } } },
    async (request) => auth.me(identityOf(request)),
  );
  app.put(
    '/api/auth/me/password',
    { config: accountRoute, schema: { body: changePasswordRequestSchema } },
    async (request, reply) => {
      await auth.changePassword(identityOf(request), request.body, request.clientIp).catch(retryAfter(reply));
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/auth/branding',
    { config: publicRoute, schema: { response: { 200: brandingResponseSchema } } },
    async () => branding.get(),
  );
}
