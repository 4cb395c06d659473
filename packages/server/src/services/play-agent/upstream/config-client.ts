import {
  nodeCacheConfigPushSchema,
  nodePublicAddressResponseSchema,
  playAgentPolicySchema,
  resolveEndpointResponseSchema,
  type NodeCacheConfigPush,
  type NodePublicAddressResponse,
  type PlayAgentPolicy,
  type ResolveEndpointResponse,
} from '@svc/contracts';
import type { ServiceClient } from '../../../platform/http/service-client.js';

/** The config service: the play-agent policy, the node's public address and the manual reverse-proxy addresses. */
export class ConfigClient {
  constructor(private readonly client: ServiceClient) {}

  policy(): Promise<PlayAgentPolicy> {
    return this.client.json('GET', '/api/config/internal/play-agent/policy', playAgentPolicySchema);
  }

  /** The node's external address, for a play-agent configured without public_base_url. */
  publicAddress(nodeId: string): Promise<NodePublicAddressResponse> {
    return this.client.json(
      'GET',
      `/api/config/internal/nodes/${encodeURIComponent(nodeId)}/public-address`,
      nodePublicAddressResponseSchema,
    );
  }

  /** This node's cache configuration (docs/vfs-cache.md). */
  cacheConfig(nodeId: string): Promise<NodeCacheConfigPush> {
    return this.client.json(
      'GET',
      `/api/config/internal/nodes/${encodeURIComponent(nodeId)}/cache-config`,
      nodeCacheConfigPushSchema,
    );
  }

  resolveEndpoint(token: string): Promise<ResolveEndpointResponse> {
    return this.client.json('POST', '/api/config/internal/endpoints/resolve', resolveEndpointResponseSchema, {
      body: { token },
    });
  }
}
