import type { RegisteredService, RegisterInstanceRequest, ServiceInstance } from '@svc/contracts';
import { registerInstanceRequestSchema } from '@svc/contracts';
import type { RegistryRepository } from './registry.repository.js';

/** An instance counts as alive while its heartbeat is younger than this. */
export const INSTANCE_LIVENESS_MS = 30_000;
/** Records older than this are removed by the registry.prune task. */
export const INSTANCE_RETENTION_MS = 24 * 60 * 60 * 1000;

export class RegistryService {
  constructor(
    private readonly repository: RegistryRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async register(request: RegisterInstanceRequest): Promise<void> {
    const parsed = registerInstanceRequestSchema.parse(request);
    await this.repository.upsert(
      {
        service: parsed.service,
        instanceId: parsed.instanceId,
        nodeId: parsed.nodeId,
        baseUrl: parsed.baseUrl.replace(/\/+$/, ''),
      },
      this.now(),
    );
  }

  async liveInstances(filter: { service?: RegisteredService; nodeId?: string }): Promise<ServiceInstance[]> {
    return this.repository.listSeenSince(filter, new Date(this.now().getTime() - INSTANCE_LIVENESS_MS));
  }

  async prune(): Promise<number> {
    return this.repository.deleteSeenBefore(new Date(this.now().getTime() - INSTANCE_RETENTION_MS));
  }
}
