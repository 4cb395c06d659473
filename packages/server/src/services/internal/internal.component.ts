import { z } from 'zod';
import { createServer } from '../../platform/http/create-server.js';
import { notFound } from '../../platform/http/errors.js';
import type { ComponentFactory } from '../../runtime/component.js';

/** Internal port (18088, loopback only): maintenance views of this process. */
export const createInternalComponent: ComponentFactory = async (context) => {
  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'internal',
    logger: context.logger.child({ component: 'internal' }),
  });

  app.get('/internal/tasks', { config: { auth: { direct: 'loopback' } } }, async () => ({
    tasks: [...context.schedulers.entries()].flatMap(([owner, scheduler]) =>
      scheduler.status().map((status) => ({ owner, ...status })),
    ),
  }));

  app.post(
    '/internal/tasks/:name/run',
    {
      config: { auth: { direct: 'loopback' } },
      schema: { params: z.object({ name: z.string().min(1).max(100) }) },
    },
    async (request) => {
      for (const scheduler of context.schedulers.values()) {
        if (scheduler.status().some((status) => status.name === request.params.name)) {
          return { result: await scheduler.runNow(request.params.name) };
        }
      }
      throw notFound(`task ${request.params.name}`);
    },
  );

  app.get('/internal/cache', { config: { auth: { direct: 'loopback' } } }, async () => ({
    mode: context.cache.mode,
  }));

  return { name: 'internal', app, host: '127.0.0.1', port: context.settings.ports.internal };
};
