import { request } from 'undici';
import type { AuditAction, Identity, RecordAuditRequest, ServiceInstance } from '@svc/contracts';
import type { Logger } from '../logger.js';
import { SERVICE_TOKEN_HEADER } from '../service-token.js';
import { auditChanges, redactSecrets } from './audit-details.js';

const TIMEOUT_MS = 5_000;

/** Who made the change and from where: the request as the route auth decoded it from the gateway. */
export interface AuditSource {
  identity: Identity | null;
  clientIp: string;
}

/** One change to record: the object's state before and after (views as answered), and other facts. */
export interface AuditEvent {
  action: AuditAction;
  target?: { type: string; id: string };
  /** Omit both for an action that changes no stored object (a test send, a token shown). */
  before?: object | null;
  after?: object | null;
  details?: Record<string, unknown>;
}

/** The newest live instance's address (a replaced instance lingers in the registry for a while). */
export function newestBaseUrl(instances: readonly ServiceInstance[]): string | undefined {
  return [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0]?.baseUrl;
}

/** The entry the user service stores: actor, address, action, target, before/after of changed fields. */
export function auditEntry(source: AuditSource, event: AuditEvent): RecordAuditRequest {
  const changes =
    event.before === undefined && event.after === undefined ? {} : auditChanges(event.before, event.after);
  return {
    actor: source.identity && { userId: source.identity.userId, username: source.identity.username },
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    details: redactSecrets({ ...event.details, ...changes }),
    clientIp: source.clientIp || null,
  };
}

/**
 * Sends audit records to the user service's audit log (POST /api/auth/internal/audit with the service
 * token), for every service but the user service itself, which writes its own. docs/audit.md.
 */
export class AuditClient {
  constructor(
    private readonly deps: {
      /** Address of a live user service instance (undefined: none registered). */
      userService: () => Promise<string | undefined>;
      serviceToken: string;
      logger: Logger;
    },
  ) {}

  /**
   * Records a change that has succeeded. Never throws: the change stands, so a record the user service
   * did not take is logged at error level with the (masked) entry instead.
   */
  async record(source: AuditSource, event: AuditEvent): Promise<void> {
    const entry = auditEntry(source, event);
    try {
      await this.deliver(entry);
    } catch (error) {
      this.deps.logger.error(
        { audit: entry, err: error instanceof Error ? error.message : String(error) },
        'audit record not delivered to the user service',
      );
    }
  }

  /**
   * Reads the object, makes the change and records both states (through `view`, default the whole answer)
   * once the change succeeded; answers what the change answered.
   */
  async recordChange<T extends object>(
    source: AuditSource,
    event: Omit<AuditEvent, 'before' | 'after'> & { view?: (state: T) => object },
    read: () => Promise<T | null>,
    change: () => Promise<T>,
  ): Promise<T> {
    const { view = (state: T) => state, ...rest } = event;
    const before = await read();
    const after = await change();
    await this.record(source, { ...rest, before: before && view(before), after: view(after) });
    return after;
  }

  /** Sends one entry; throws when the user service is not registered or refuses it. */
  async deliver(entry: RecordAuditRequest): Promise<void> {
    const base = await this.deps.userService();
    if (!base) throw new Error('the user service is not registered');
    const response = await request(`${base.replace(/\/+$/, '')}/api/auth/internal/audit`, {
      method: 'POST',
      headers: { [SERVICE_TOKEN_HEADER]: this.deps.serviceToken, 'content-type': 'application/json' },
      body: JSON.stringify(entry),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const text = await response.body.text();
    if (response.statusCode !== 204 && response.statusCode !== 200) {
      throw new Error(`the user service answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
  }
}

/** The audit client of a service that finds the user service through the registry client. */
export function registryAuditClient(context: {
  registry: { lookup(service: 'svc-user'): Promise<ServiceInstance[]> };
  serviceToken: string;
  logger: Logger;
}): AuditClient {
  return new AuditClient({
    userService: async () => newestBaseUrl(await context.registry.lookup('svc-user')),
    serviceToken: context.serviceToken,
    logger: context.logger,
  });
}
