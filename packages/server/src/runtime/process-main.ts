import { createLogger, type Logger } from '../platform/logger.js';
import { loadSettings, SettingsError, type Settings } from '../platform/settings.js';
import { createCache, systemClock } from '../platform/cache/index.js';
import { RegistryClient } from '../platform/registry-client.js';
import type { RuntimeContext, Topology } from './component.js';
import { startComponents } from './host.js';
import { loadRole, type ProcessRole } from './roles.js';
import type { StartupProgressMessage } from '../platform/startup-progress.js';

/** Messages a child process sends to the supervisor over the IPC channel. */
export type ChildMessage =
  | { type: 'ready'; role: ProcessRole }
  | { type: 'fatal'; role: ProcessRole; message: string }
  | StartupProgressMessage;

function serviceTokenOf(settings: Settings): string {
  if (!settings.serviceToken) {
    throw new SettingsError(
      'SVC_SERVICE_TOKEN',
      'is required (the same value on every machine of the install)',
    );
  }
  return settings.serviceToken;
}

/**
 * Runs one process role until SIGTERM/SIGINT (or, under the supervisor, until the IPC channel
 * closes because the supervisor is gone). Start-up failures are reported as one line.
 */
export async function runProcess(role: ProcessRole, topology: Topology): Promise<void> {
  let logger: Logger | undefined;
  try {
    const settings = loadSettings();
    logger = createLogger({ level: settings.logLevel, component: role });
    const serviceToken = serviceTokenOf(settings);
    const cache = await createCache({ redisUrl: settings.redisUrl, logger });
    const registry = new RegistryClient({
      configBaseUrl: role === 'play-agent' ? settings.playAgent.configBaseUrl : settings.configBaseUrl,
      serviceToken,
      logger,
    });
    const context: RuntimeContext = {
      settings,
      topology,
      logger,
      serviceToken,
      cache,
      clock: systemClock,
      registry,
      schedulers: new Map(),
    };
    const running = await startComponents(context, await loadRole(role)).catch(async (error: unknown) => {
      await cache.close();
      throw error;
    });

    let stopping = false;
    const shutdown = (reason: string): void => {
      if (stopping) return;
      stopping = true;
      logger?.info({ reason }, 'stopping');
      const force = setTimeout(() => process.exit(1), 15_000);
      force.unref();
      void running
        .stop()
        .then(() => cache.close())
        .finally(() => {
          logger?.info('stopped');
          logger?.flush();
          process.exit(0);
        });
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    // Under the supervisor a terminal's Ctrl-C reaches every process of the group: the supervisor alone
    // acts on it and stops the processes in order (players' nodes first, so their last reports arrive).
    process.on('SIGINT', () => {
      if (!process.send) shutdown('SIGINT');
    });
    process.on('disconnect', () => shutdown('supervisor gone'));
    process.send?.({ type: 'ready', role } satisfies ChildMessage);
    logger.info({ role }, 'ready');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger?.error({ role, err: message }, 'start failed');
    logger?.flush();
    if (process.send) {
      process.send({ type: 'fatal', role, message } satisfies ChildMessage, () => process.exit(1));
    } else {
      process.stderr.write(`svc: ${message}\n`);
      process.exit(error instanceof SettingsError ? 2 : 1);
    }
  }
}
