import { request } from 'undici';
import type { RecordAuditRequest, ServiceInstance } from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** Where licence changes are recorded: the user service's audit log. */
export interface AuditRecorder {
  record(entry: RecordAuditRequest): Promise<void>;
}

const TIMEOUT_MS = 5_000;

/**
 * POST /api/auth/internal/audit on a live user-service instance with the service token. The config
 * service keeps the registry itself, so it reads the live instances directly instead of asking itself
 * over HTTP.
 */
export class HttpAuditRecorder implements AuditRecorder {
  constructor(
    private readonly liveUserInstances: () => Promise<ServiceInstance[]>,
    private readonly serviceToken: string,
  ) {}

  async record(entry: RecordAuditRequest): Promise<void> {
    const instances = await this.liveUserInstances();
    const newest = [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
    if (!newest) throw new Error('the user service is not registered');
    const response = await request(`${newest.baseUrl.replace(/\/+$/, '')}/api/auth/internal/audit`, {
      method: 'POST',
      headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, 'content-type': 'application/json' },
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
