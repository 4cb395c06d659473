import type { RegisteredService } from '@svc/contracts';
import type { RegistryClient } from '../../platform/registry-client.js';
import { AppError } from '../../platform/http/errors.js';

export interface UpstreamResolverOptions {
  registry: RegistryClient;
  configBaseUrl: string;
  /** Storage node used when the request names none and several are registered (standalone: the built-in one). */
  defaultStorageNodeId: string;
}

/** Finds the base URL of the service instance that should answer a request. */
export class UpstreamResolver {
  private next = 0;

  constructor(private readonly options: UpstreamResolverOptions) {}

  async resolve(service: RegisteredService, storageNodeId: string | undefined): Promise<string> {
    if (service === 'svc-config') return this.options.configBaseUrl;
    let instances;
    try {
      instances = await this.options.registry.lookup(service);
    } catch {
      throw new AppError(503, 'UPSTREAM_UNAVAILABLE', 'the service registry did not answer');
    }
    if (service === 'svc-control-storage') {
      const wanted = storageNodeId ?? this.options.defaultStorageNodeId;
      const match = instances.find((instance) => instance.nodeId === wanted);
      if (match) return match.baseUrl;
      if (storageNodeId !== undefined) {
        throw new AppError(404, 'STORAGE_NODE_NOT_FOUND', `storage node ${storageNodeId} is not online`);
      }
      if (instances.length === 1 && instances[0]) return instances[0].baseUrl;
      throw new AppError(
        instances.length === 0 ? 503 : 400,
        instances.length === 0 ? 'UPSTREAM_UNAVAILABLE' : 'STORAGE_NODE_REQUIRED',
        instances.length === 0
          ? 'no storage node is online'
          : 'several storage nodes are registered: name one in X-Storage-Node-Id',
      );
    }
    if (instances.length === 0) {
      throw new AppError(503, 'UPSTREAM_UNAVAILABLE', `${service} is not online`);
    }
    this.next = (this.next + 1) % instances.length;
    return instances[this.next]!.baseUrl;
  }
}
