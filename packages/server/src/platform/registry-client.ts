import { request } from 'undici';
import type { RegisteredService, RegisterInstanceRequest, ServiceInstance } from '@svc/contracts';
import { REGISTRY_TOKEN_HEADER, listInstancesResponseSchema } from '@svc/contracts';
import type { Logger } from './logger.js';
import { SERVICE_TOKEN_HEADER } from './service-token.js';

export interface RegistryClientOptions {
  configBaseUrl: string;
  serviceToken: string;
  logger: Logger;
  /** How long a lookup result that found instances is reused (an empty one is asked again). */
  cacheMs?: number;
  /**
   * Registry token for this client's registrations (a node's own token, or the global service token).
   * When set, heartbeats carry it in X-SVC-Registry-Token instead of the service token; lookups still use
   * the service token. A per-call `registryToken` wins over this.
   */
  registryToken?: string;
}

/** Per registration: the registry token to send (X-SVC-Registry-Token) instead of the service token. */
export interface RegisterOptions {
  registryToken?: string;
}

/** Talks to the config service's registry: registers this process's listeners and finds the others. */
export class RegistryClient {
  private readonly cache = new Map<string, { at: number; instances: ServiceInstance[] }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: RegistryClientOptions) {}

  /**
   * One registration. With a registry token (argument, else the client option) it is sent alone in
   * X-SVC-Registry-Token, so a wrong registry token is refused (403) rather than hidden by the service token.
   */
  async register(instance: RegisterInstanceRequest, options: RegisterOptions = {}): Promise<void> {
    const registryToken = options.registryToken ?? this.options.registryToken;
    const credential =
      registryToken === undefined
        ? { [SERVICE_TOKEN_HEADER]: this.options.serviceToken }
        : { [REGISTRY_TOKEN_HEADER]: registryToken };
    const response = await request(`${this.options.configBaseUrl}/api/config/registry/instances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credential },
      body: JSON.stringify(instance),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 204 && response.statusCode !== 200) {
      throw new Error(`registry answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
  }

  /**
   * Registers now and then every intervalMs (a heartbeat), retrying quietly until the config
   * service answers; the first success and a change from failing to working are logged.
   */
  keepRegistered(
    instance: RegisterInstanceRequest,
    intervalMs = 10_000,
    options: RegisterOptions = {},
  ): void {
    let failing = false;
    const beat = async (): Promise<void> => {
      if (this.closed) return;
      try {
        await this.register(instance, options);
        if (failing)
          this.options.logger.info({ service: instance.service }, 'registered with config service again');
        failing = false;
      } catch (error) {
        if (!failing) {
          this.options.logger.warn(
            { service: instance.service, err: (error as Error).message },
            'cannot register with config service yet; retrying',
          );
        }
        failing = true;
      }
      if (this.closed) return;
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          void beat();
        },
        failing ? Math.min(intervalMs, 1_000) : intervalMs,
      );
      timer.unref();
      this.timers.add(timer);
    };
    void beat();
  }

  async lookup(service: RegisteredService, nodeId?: string): Promise<ServiceInstance[]> {
    const key = `${service}/${nodeId ?? ''}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < (this.options.cacheMs ?? 3_000)) return cached.instances;
    const query = new URLSearchParams({ service });
    if (nodeId) query.set('nodeId', nodeId);
    const response = await request(
      `${this.options.configBaseUrl}/api/config/registry/instances?${query.toString()}`,
      {
        headers: { [SERVICE_TOKEN_HEADER]: this.options.serviceToken },
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      },
    );
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`registry lookup answered ${response.statusCode}`);
    }
    const { instances } = listInstancesResponseSchema.parse(await response.body.json());
    // A miss is not kept: right after a start, a service asked for before it registered would otherwise
    // stay "not registered" for the whole cache time after it did.
    if (instances.length > 0) this.cache.set(key, { at: Date.now(), instances });
    else this.cache.delete(key);
    return instances;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
