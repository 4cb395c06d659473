import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSettings } from '../../src/platform/settings.js';
import { createLogger } from '../../src/platform/logger.js';
import { createCache, systemClock, type Clock } from '../../src/platform/cache/index.js';
import { RegistryClient } from '../../src/platform/registry-client.js';
import type { ComponentFactory, RuntimeContext, Topology } from '../../src/runtime/component.js';
import { startComponents, type RunningComponents } from '../../src/runtime/host.js';
import { portEnv } from './ports.js';

export interface TestInstall {
  context: RuntimeContext;
  running: RunningComponents;
  dataDir: string;
  url(component: keyof RuntimeContext['settings']['ports']): string;
  stop(): Promise<void>;
}

/** Starts components in this test process on free ports, against the given backend variables. */
export async function startTestInstall(
  factories: readonly ComponentFactory[],
  backendEnv: Record<string, string>,
  options: { topology?: Topology; env?: Record<string, string>; clock?: Clock; keyPrefix?: string } = {},
): Promise<TestInstall> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  const ports = await portEnv();
  const settings = loadSettings({
    ...ports,
    ...backendEnv,
    SVC_DATA_DIR: dataDir,
    SVC_SERVICE_TOKEN: 'svc_st_test_token_that_is_long_enough_0123456789',
    SVC_PLAY_AGENT_BIND_HOST: '127.0.0.1',
    SVC_BIND_HOST: '127.0.0.1',
    ...options.env,
  });
  const logger = createLogger({ level: 'silent', component: 'test' });
  const clock = options.clock ?? systemClock;
  const cache = await createCache({
    redisUrl: settings.redisUrl,
    logger,
    keyPrefix: options.keyPrefix ?? `svc-test-${process.pid}-${Date.now()}:`,
    clock,
  });
  const registry = new RegistryClient({
    configBaseUrl: settings.configBaseUrl,
    serviceToken: settings.serviceToken!,
    logger,
    cacheMs: 200,
  });
  const context: RuntimeContext = {
    settings,
    topology: options.topology ?? 'standalone',
    logger,
    serviceToken: settings.serviceToken!,
    cache,
    clock,
    registry,
    schedulers: new Map(),
  };
  const running = await startComponents(context, factories);
  return {
    context,
    running,
    dataDir,
    url: (component) => `http://127.0.0.1:${settings.ports[component]}`,
    stop: async () => {
      await running.stop();
      await cache.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { waitFor } from './wait.js';
