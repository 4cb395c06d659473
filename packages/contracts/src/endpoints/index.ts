import type { EndpointDeclaration } from '../endpoint.js';
import { configEndpoints } from './config.js';
import { gatewayEndpoints } from './gateway.js';
import { healthEndpoints } from './health.js';
import { mediaEndpoints } from './media.js';
import { nodeCacheEndpoints, playAgentCacheEndpoints } from './node-cache.js';
import { nodeProbeEndpoints } from './node-probe.js';
import { playAgentEndpoints } from './play-agent.js';
import { sharedEndpoints } from './shared.js';
import { storageEndpoints } from './storage.js';
import { userEndpoints } from './user.js';

/** Every endpoint, by service and action: `endpoints.config.listNodes`. */
export const endpoints = {
  config: configEndpoints,
  user: userEndpoints,
  media: mediaEndpoints,
  storage: storageEndpoints,
  playAgent: playAgentEndpoints,
  nodeCache: nodeCacheEndpoints,
  playAgentCache: playAgentCacheEndpoints,
  shared: sharedEndpoints,
  gateway: gatewayEndpoints,
  health: healthEndpoints,
  nodeProbe: nodeProbeEndpoints,
} as const;

/** Every declared endpoint in one list (gateway table, OpenAPI document, route audit). */
const groups: readonly Record<string, EndpointDeclaration>[] = Object.values(endpoints);
export const allEndpoints: readonly EndpointDeclaration[] = groups.flatMap((group) => Object.values(group));
export { startupProbeStatusSchema, type StartupProbeStatus } from './node-probe.js';
