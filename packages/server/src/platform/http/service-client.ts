import { request } from 'undici';
import type { z } from 'zod';
import { errorBodySchema, type RegisteredService } from '@svc/contracts';
import { AppError } from './errors.js';
import type { RegistryClient } from '../registry-client.js';
import { SERVICE_TOKEN_HEADER } from '../service-token.js';

export interface ServiceClientOptions {
  service: RegisteredService;
  /** A fixed address (PLAY_AGENT_USER_BASE_URL and the like); otherwise the registry is asked. */
  fixedBaseUrl?: string;
  registry: Pick<RegistryClient, 'lookup'>;
  serviceToken: string;
  timeoutMs?: number;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const unavailable = (service: string, detail: string) =>
  new AppError(503, 'UPSTREAM_UNAVAILABLE', `${service} is not available: ${detail}`);

/**
 * JSON calls to one control service with the service token. Answers of 4xx keep their status and code
 * (a 404 of the media service stays a 404 for the player); anything else becomes 503 UPSTREAM_UNAVAILABLE.
 */
export class ServiceClient {
  constructor(private readonly options: ServiceClientOptions) {}

  async baseUrl(): Promise<string> {
    if (this.options.fixedBaseUrl) return this.options.fixedBaseUrl.replace(/\/+$/, '');
    let instances;
    try {
      instances = await this.options.registry.lookup(this.options.service);
    } catch (error) {
      throw unavailable(this.options.service, `registry lookup failed (${(error as Error).message})`);
    }
    const newest = [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
    if (!newest) throw unavailable(this.options.service, 'not registered');
    return newest.baseUrl.replace(/\/+$/, '');
  }

  async json<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    schema: z.ZodType<T>,
    options: CallOptions = {},
  ) {
    const answer = await this.send(method, path, options);
    const parsed = schema.safeParse(answer.body);
    if (!parsed.success) throw unavailable(this.options.service, `unexpected answer to ${method} ${path}`);
    return parsed.data;
  }

  /** For calls answered with 204 No Content. */
  async send(method: 'GET' | 'POST' | 'PUT', path: string, options: CallOptions = {}) {
    const base = await this.baseUrl();
    const timeout = this.options.timeoutMs ?? 10_000;
    let response;
    try {
      response = await request(`${base}${path}`, {
        method,
        headers: {
          [SERVICE_TOKEN_HEADER]: this.options.serviceToken,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: options.signal,
      });
    } catch (error) {
      throw unavailable(this.options.service, (error as Error).message);
    }
    const text = await response.body.text();
    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        throw unavailable(this.options.service, `answered ${response.statusCode} without JSON`);
      }
    }
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { status, body };
    const error = errorBodySchema.safeParse(body);
    // A refusal of the request itself (unknown item, wrong password, lock) is the player's answer; a
    // refusal of our service token is a deployment fault and reads as unavailable.
    if (
      status >= 400 &&
      status < 500 &&
      error.success &&
      error.data.error.message !== 'service token required'
    ) {
      throw new AppError(status, error.data.error.code, error.data.error.message, error.data.error.details);
    }
    throw unavailable(this.options.service, `answered ${status} to ${method} ${path}`);
  }
}
