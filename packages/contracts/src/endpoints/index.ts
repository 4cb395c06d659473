import type { EndpointDeclaration } from '../endpoint.js';
import { clusterEndpoints } from './cluster.js';
import { configEndpoints } from './config.js';
import { diagnosticsEndpoints, playAgentDiagnosticsEndpoints } from './diagnostics.js';
import { gatewayEndpoints } from './gateway.js';
import { healthEndpoints } from './health.js';
import { mediaEndpoints } from './media.js';
import { nodeCacheEndpoints, playAgentCacheEndpoints } from './node-cache.js';
import { nodeCdnEndpoints, playAgentCdnEndpoints } from './node-cdn.js';
import { nodeProbeEndpoints } from './node-probe.js';
import { playAgentEndpoints } from './play-agent.js';
import { sharedEndpoints } from './shared.js';
import { storageEndpoints } from './storage.js';
import { userEndpoints } from './user.js';

export {
  diagnosticCheckSchema,
  DIAGNOSTICS_DEFAULT_HOLD_SECONDS,
  diagnosticsRunSchema,
  startDiagnosticsRunBodySchema,
  type DiagnosticsRun,
  proxySnippetQuerySchema,
  proxySnippetResponseSchema,
  type DiagnosticCheck,
  PROXY_PROBE_BYTES,
  PROXY_PROBE_MAX_HOLD_MS,
  PROXY_PROBE_ROUTE_HEADER,
  proxyProbeQuerySchema,
} from './diagnostics.js';

/** Every endpoint, by service and action: `endpoints.config.listNodes`. */
export const endpoints = {
  config: configEndpoints,
  user: userEndpoints,
  media: mediaEndpoints,
  storage: storageEndpoints,
  playAgent: playAgentEndpoints,
  nodeCache: nodeCacheEndpoints,
  playAgentCache: playAgentCacheEndpoints,
  nodeCdn: nodeCdnEndpoints,
  playAgentCdn: playAgentCdnEndpoints,
  shared: sharedEndpoints,
  gateway: gatewayEndpoints,
  health: healthEndpoints,
  nodeProbe: nodeProbeEndpoints,
  diagnostics: diagnosticsEndpoints,
  cluster: clusterEndpoints,
  playAgentDiagnostics: playAgentDiagnosticsEndpoints,
} as const;

/** Every declared endpoint in one list (gateway table, OpenAPI document, route audit). */
const groups: readonly Record<string, EndpointDeclaration>[] = Object.values(endpoints);
export const allEndpoints: readonly EndpointDeclaration[] = groups.flatMap((group) => Object.values(group));
export { startupProbeStatusSchema, type StartupProbeStatus } from './node-probe.js';
