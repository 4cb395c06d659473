import { endpoints } from '@svc/contracts';
import { createServer } from '../../platform/http/create-server.js';
import { serve } from '../../platform/http/endpoint-route.js';
import { notFound } from '../../platform/http/errors.js';
import type { ComponentFactory } from '../../runtime/component.js';

/** Internal port (18088, loopback only): maintenance views of this process. */
export const createInternalComponent: ComponentFactory = async (context) => {
  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'internal',
    logger: context.logger.child({ component: 'internal' }),
  });

  serve(app, endpoints.shared.listTasks, async () => ({
    tasks: [...context.schedulers.entries()].flatMap(([owner, scheduler]) =>
      scheduler.status().map((status) => ({ owner, ...status })),
    ),
  }));

  serve(app, endpoints.shared.runTask, async (request) => {
    for (const scheduler of context.schedulers.values()) {
      if (scheduler.status().some((status) => status.name === request.params.name)) {
        return { result: await scheduler.runNow(request.params.name) };
      }
    }
    throw notFound(`task ${request.params.name}`);
  });

  serve(app, endpoints.shared.getCacheMode, async () => ({
    mode: context.cache.mode,
  }));

  return { name: 'internal', app, host: '127.0.0.1', port: context.settings.ports.internal };
};
