import type { ComponentName, RegisteredService } from '@svc/contracts';
import type { AppServer } from '../platform/http/create-server.js';
import type { Settings } from '../platform/settings.js';
import type { Logger } from '../platform/logger.js';
import type { Cache, Clock } from '../platform/cache/index.js';
import type { RegistryClient } from '../platform/registry-client.js';
import type { TaskScheduler } from '../platform/tasks/index.js';

/** How a process lays out its listeners: standalone keeps internal listeners on loopback. */
export type Topology = 'standalone' | 'distributed';

export interface RuntimeContext {
  settings: Settings;
  topology: Topology;
  logger: Logger;
  serviceToken: string;
  cache: Cache;
  /** Time source for rules that depend on time (login lock, token expiry); tests inject their own. */
  clock: Clock;
  registry: RegistryClient;
  /** Every scheduler created in this process, for the internal status page. */
  schedulers: Map<string, TaskScheduler>;
}

/** One listener of the spec's component table, built as an encapsulated Fastify app. */
export interface Component {
  name: ComponentName;
  app: AppServer;
  host: string;
  port: number;
  /** Registry entry written at start and refreshed by heartbeat (the config service itself has none). */
  registration?: {
    service: RegisteredService;
    nodeId?: string | null;
    /** Sent by the heartbeat instead of the service token (worker nodes' registry_token). */
    registryToken?: string;
  };
  /** Starts background work once the listener is up (schedulers, heartbeats). */
  start?: () => void | Promise<void>;
  /** Releases resources after the listener closed (schedulers, databases). */
  stop?: () => Promise<void>;
}

export type ComponentFactory = (context: RuntimeContext) => Promise<Component>;
