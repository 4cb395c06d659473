import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { endpoints, type ComponentName, type ErrorCode, type HealthResponse } from '@svc/contracts';
import type { Logger } from '../logger.js';
import { unavailableCause, type UnavailableCause } from '../db/errors.js';
import { AppError, RETRY_AFTER_SECONDS, errorBody, serviceUnavailable } from './errors.js';
import { installRouteAuth, type DeclaredRoute } from './route-auth.js';
import { serve } from './endpoint-route.js';
import { answerFrameworkError, refuseMalformedUrl } from './malformed-url.js';
import { SVC_VERSION } from '../version.js';

export type AppServer = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface ServerOptions {
  component: ComponentName;
  logger: Logger;
  /** The install's service token: routes reached through the gateway or other services require it. */
  serviceToken: string;
  /** Largest parsed request body; proxies stream bodies and enforce their own limit. */
  bodyLimit?: number;
  /** Extra health checks reported under `checks`; any DOWN makes the health route answer 503. */
  healthChecks?: () => Promise<Record<string, 'UP' | 'DOWN' | 'DEGRADED'>>;
  /** Extra paths (besides /health) that answer the same health document. */
  healthPaths?: string[];
  /** Disable Node's request timeout (streaming listeners) or set it (ms). */
  requestTimeoutMs?: number;
  /** Paths match whatever their letter case (the client protocol of the play-agent). */
  caseInsensitiveRoutes?: boolean;
  /**
   * Accept routes without an endpoint declaration: only for test harnesses that stand in for a peer with
   * ad-hoc routes. Every service component leaves it off, so an undeclared route stops it at start.
   */
  allowUndeclaredRoutes?: boolean;
  /** Rewrites a request URL before routing (the play-agent's optional /emby prefix). */
  rewriteUrl?: (url: string) => string;
}

const startedAt = Date.now();
const declaredRoutes = new WeakMap<object, DeclaredRoute[]>();

/** Every route registered on a server with its access rule (for the route audit). */
export function routesOf(app: AppServer): DeclaredRoute[] {
  return declaredRoutes.get(app) ?? [];
}

const UNAVAILABLE_MESSAGES: Record<UnavailableCause, string> = {
  database: 'the database is not available; try again shortly',
  connection: 'a service this request needs is not reachable; try again shortly',
};

/** Passing faults (503) ask the client to retry a little later. */
const RETRYABLE_CODES = new Set<ErrorCode>(['SERVICE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);

function sendAppError(reply: FastifyReply, error: AppError) {
  if (error.statusCode === 503 && RETRYABLE_CODES.has(error.code) && !reply.hasHeader('retry-after')) {
    void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  }
  return reply.status(error.statusCode).send(error.toBody());
}

/** A Fastify listener with the common error body, zod schemas and a health route. */
export function createServer(options: ServerOptions): AppServer {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestTimeout: options.requestTimeoutMs ?? 600_000,
    keepAliveTimeout: 65_000,
    connectionTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: true,
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { caseSensitive: !options.caseInsensitiveRoutes, ignoreTrailingSlash: false },
    frameworkErrors: answerFrameworkError,
    ...(options.rewriteUrl
      ? { rewriteUrl: (request: { url?: string }) => options.rewriteUrl!(request.url ?? '/') }
      : {}),
  }).withTypeProvider<ZodTypeProvider>() as unknown as AppServer;

  const routes: DeclaredRoute[] = [];
  declaredRoutes.set(app, routes);
  app.addHook('onRequest', refuseMalformedUrl);
  installRouteAuth(app, options.serviceToken, routes, options.allowUndeclaredRoutes);

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onResponse', (request, reply, done) => {
    request.log.debug({ req: request, res: reply, ms: Math.round(reply.elapsedTime) }, 'request completed');
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    const unavailable = error instanceof AppError ? undefined : unavailableCause(error);
    if (unavailable) {
      request.log.warn({ err: error, req: request }, `${unavailable} unavailable`);
      return sendAppError(reply, serviceUnavailable(UNAVAILABLE_MESSAGES[unavailable]));
    }
    if (error instanceof AppError) return sendAppError(reply, error);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((issue) => ({
        path: issue.instancePath,
        message: issue.message,
      }));
      return reply.status(400).send(errorBody('VALIDATION_FAILED', 'request is not valid', issues));
    }
    const failure = error as Error & { statusCode?: unknown };
    const status = typeof failure.statusCode === 'number' ? failure.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error, req: request }, 'request failed');
      return reply.status(status).send(errorBody('INTERNAL_ERROR', 'internal error'));
    }
    const code =
      status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST';
    return reply.status(status).send(errorBody(code, failure.message));
  });

  app.setNotFoundHandler((request, reply) => {
    return reply
      .status(404)
      .send(errorBody('NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`));
  });

  const health = async (): Promise<{ code: number; body: HealthResponse }> => {
    const checks = options.healthChecks ? await options.healthChecks() : undefined;
    const down = checks ? Object.values(checks).includes('DOWN') : false;
    return {
      code: down ? 503 : 200,
      body: {
        status: down ? 'DOWN' : 'UP',
        component: options.component,
        version: SVC_VERSION,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        ...(checks ? { checks } : {}),
      },
    };
  };
  for (const path of ['/health', ...(options.healthPaths ?? [])]) {
    const endpoint = Object.values(endpoints.health).find((declared) => declared.path === path);
    if (!endpoint) throw new Error(`health path ${path} has no endpoint declaration`);
    serve(app, endpoint, async (_request, reply) => {
      const { code, body } = await health();
      return reply.status(code).send(body);
    });
  }
  return app;
}
