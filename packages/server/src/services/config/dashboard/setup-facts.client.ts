import { request } from 'undici';
import type { z } from 'zod';
import {
  internalMountListSchema,
  mediaSetupFactsSchema,
  userSetupFactsSchema,
  type MediaSetupFacts,
  type RegisteredService,
  type ServiceInstance,
  type UserSetupFacts,
} from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** What the other services say for the dashboard's checklist; null when the one that knows did not answer. */
export interface SetupFactSources {
  /** Mounts over every storage node that answered; null when none did. */
  mounts(): Promise<number | null>;
  media(): Promise<MediaSetupFacts | null>;
  users(): Promise<UserSetupFacts | null>;
}

const TIMEOUT_MS = 5_000;

/**
 * Asks the live instances the config service's own registry lists, with the service token: the newest
 * media and user instance, and every storage node (mounts are per node). A service that does not answer,
 * or answers unexpectedly, is an unknown fact rather than an error of the dashboard.
 */
export class HttpSetupFactSources implements SetupFactSources {
  constructor(
    private readonly liveInstances: (filter: { service: RegisteredService }) => Promise<ServiceInstance[]>,
    private readonly serviceToken: string,
  ) {}

  private async get<T>(baseUrl: string, path: string, schema: z.ZodType<T>): Promise<T | null> {
    try {
      const response = await request(`${baseUrl.replace(/\/+$/, '')}${path}`, {
        headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return null;
      }
      const parsed = schema.safeParse(await response.body.json());
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private async newest<T>(service: RegisteredService, path: string, schema: z.ZodType<T>): Promise<T | null> {
    const instances = await this.liveInstances({ service });
    const newest = [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
    return newest ? this.get(newest.baseUrl, path, schema) : null;
  }

  async mounts(): Promise<number | null> {
    const nodes = await this.liveInstances({ service: 'svc-control-storage' });
    const answers = await Promise.all(
      nodes.map((node) => this.get(node.baseUrl, '/api/storage/internal/mounts', internalMountListSchema)),
    );
    const answered = answers.filter((answer) => answer !== null);
    return answered.length === 0 ? null : answered.reduce((sum, answer) => sum + answer.mounts.length, 0);
  }

  media(): Promise<MediaSetupFacts | null> {
    return this.newest('svc-media', '/api/media/internal/setup-facts', mediaSetupFactsSchema);
  }

  users(): Promise<UserSetupFacts | null> {
    return this.newest('svc-user', '/api/auth/internal/setup-facts', userSetupFactsSchema);
  }
}
