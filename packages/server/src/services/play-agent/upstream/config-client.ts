import {
  playAgentPolicySchema,
  resolveEndpointResponseSchema,
  type PlayAgentPolicy,
  type ResolveEndpointResponse,
} from '@svc/contracts';
import type { ServiceClient } from './service-client.js';

/** The config service: the play-agent policy and the manual reverse-proxy addresses. */
export class ConfigClient {
  constructor(private readonly client: ServiceClient) {}

  policy(): Promise<PlayAgentPolicy> {
    return this.client.json('GET', '/api/config/internal/play-agent/policy', playAgentPolicySchema);
  }

  resolveEndpoint(token: string): Promise<ResolveEndpointResponse> {
    return this.client.json('POST', '/api/config/internal/endpoints/resolve', resolveEndpointResponseSchema, {
      body: { token },
    });
  }
}
