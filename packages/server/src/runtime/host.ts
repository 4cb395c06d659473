import type { Component, ComponentFactory, RuntimeContext } from './component.js';
import { advertisedUrl } from './bind.js';
import { startupStep } from '../platform/startup-progress.js';

export interface RunningComponents {
  components: Component[];
  stop(): Promise<void>;
}

/** A listener that could not start: the message is one line naming the component and port. */
export class ListenError extends Error {}

/**
 * Builds and starts the components in order. If any fails, those already started are stopped
 * again before the error is rethrown, so a failed start leaves nothing listening.
 */
export async function startComponents(
  context: RuntimeContext,
  factories: readonly ComponentFactory[],
): Promise<RunningComponents> {
  const started: Component[] = [];
  const stopAll = async (): Promise<void> => {
    context.registry.close();
    for (const component of [...started].reverse()) {
      await component.app.close().catch((error: unknown) => {
        context.logger.warn({ component: component.name, err: (error as Error).message }, 'close failed');
      });
      await component.stop?.().catch((error: unknown) => {
        context.logger.warn({ component: component.name, err: (error as Error).message }, 'stop failed');
      });
    }
  };

  try {
    for (const [index, factory] of factories.entries()) {
      startupStep(`building component ${index + 1} of ${factories.length}`);
      const component = await factory(context);
      started.push(component);
      try {
        await component.app.listen({ host: component.host, port: component.port });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const reason =
          code === 'EADDRINUSE'
            ? 'is already in use'
            : code === 'EACCES'
              ? 'needs more privileges'
              : code === 'EADDRNOTAVAIL'
                ? 'is not an address of this machine'
                : (error as Error).message;
        throw new ListenError(
          `${component.name} cannot listen on ${component.host}:${component.port}: ${reason}`,
        );
      }
      context.logger.info(
        { component: component.name, host: component.host, port: component.port },
        'listening',
      );
    }
    for (const component of started) {
      startupStep(`starting ${component.name}`);
      await component.start?.();
      if (component.registration) {
        context.registry.keepRegistered(
          {
            service: component.registration.service,
            instanceId: `${component.registration.service}@${advertisedUrl(context, component.port)}`,
            nodeId: component.registration.nodeId ?? null,
            baseUrl: advertisedUrl(context, component.port),
          },
          undefined,
          component.registration.registryToken ? { registryToken: component.registration.registryToken } : {},
        );
      }
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { components: started, stop: stopAll };
}
