import type { RegisteredService, RegisterInstanceRequest, ServiceInstance } from '@svc/contracts';
import { registerInstanceRequestSchema } from '@svc/contracts';
import { forbidden } from '../../../platform/http/errors.js';
import { secretsEqual } from '../../../platform/service-token.js';
import type { RegistryRepository } from './registry.repository.js';

/** An instance counts as alive while its heartbeat is younger than this. */
export const INSTANCE_LIVENESS_MS = 30_000;
/** Records older than this are removed by the registry.prune task. */
export const INSTANCE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The spec's answer to a registration whose registry token fits neither the install nor the node. */
export const REGISTRY_TOKEN_MISMATCH = 'registry token does not match service instance';

/** How a heartbeat proved itself: the service token (already checked), or a registry token to check. */
export type HeartbeatCredential = { kind: 'service-token' } | { kind: 'registry-token'; token: string };

/** What the registry needs of the node records. */
export interface NodeHeartbeats {
  registryTokenMatches(nodeId: string, service: string, token: string): Promise<boolean>;
  heartbeat(nodeId: string, service: string): Promise<void>;
}

export class RegistryService {
  constructor(
    private readonly repository: RegistryRepository,
    private readonly nodes: NodeHeartbeats,
    private readonly serviceToken: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A registration heartbeat. A registry token is valid when it is the install's service token or the
   * registry token of the node record named by nodeId (of the registering service's type); anything else
   * is refused with 403 and changes nothing. A heartbeat naming a node record marks it ONLINE.
   */
  async register(request: RegisterInstanceRequest, credential: HeartbeatCredential): Promise<void> {
    const parsed = registerInstanceRequestSchema.parse(request);
    if (credential.kind === 'registry-token') {
      const global = secretsEqual(credential.token, this.serviceToken);
      const own =
        !global &&
        parsed.nodeId !== null &&
        (await this.nodes.registryTokenMatches(parsed.nodeId, parsed.service, credential.token));
      if (!global && !own) throw forbidden(REGISTRY_TOKEN_MISMATCH);
    }
    await this.repository.upsert(
      {
        service: parsed.service,
        instanceId: parsed.instanceId,
        nodeId: parsed.nodeId,
        baseUrl: parsed.baseUrl.replace(/\/+$/, ''),
      },
      this.now(),
    );
    if (parsed.nodeId !== null) await this.nodes.heartbeat(parsed.nodeId, parsed.service);
  }

  async liveInstances(filter: { service?: RegisteredService; nodeId?: string }): Promise<ServiceInstance[]> {
    return this.repository.listSeenSince(filter, new Date(this.now().getTime() - INSTANCE_LIVENESS_MS));
  }

  /**
   * The newest registered base URL of each node of a service (within the retention window, alive or not):
   * where the node last said it listens, e.g. the real port of a play-agent.
   */
  async newestNodeAddresses(service: RegisteredService): Promise<Map<string, string>> {
    const since = new Date(this.now().getTime() - INSTANCE_RETENTION_MS);
    const addresses = new Map<string, string>();
    // Newest first: the first record of a node is its newest.
    for (const record of await this.repository.listSeenSince({ service }, since)) {
      if (record.nodeId !== null && !addresses.has(record.nodeId))
        addresses.set(record.nodeId, record.baseUrl);
    }
    return addresses;
  }

  async prune(): Promise<number> {
    return this.repository.deleteSeenBefore(new Date(this.now().getTime() - INSTANCE_RETENTION_MS));
  }
}
