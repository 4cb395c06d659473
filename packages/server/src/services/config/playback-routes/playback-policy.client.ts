import { request } from 'undici';
import { errorBodySchema, playbackPolicyResponseSchema, type PlaybackPolicyResponse } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** A user's playback policy (node access) as the user service keeps it. */
export interface PlaybackPolicySource {
  policy(userId: string): Promise<PlaybackPolicyResponse>;
}

const TIMEOUT_MS = 5_000;

const unavailable = (detail: string) =>
  new AppError(503, 'UPSTREAM_UNAVAILABLE', `the user service is not available: ${detail}`);

/**
 * `GET /api/auth/internal/users/:id/playback-policy` of the user service with the service token (the same
 * route the play-agents use). The user service's address comes from `baseUrl` (the config service's own
 * registry). A 404 stays a 404; anything else that fails is 503 UPSTREAM_UNAVAILABLE.
 */
export class HttpPlaybackPolicySource implements PlaybackPolicySource {
  constructor(
    private readonly baseUrl: () => Promise<string | undefined>,
    private readonly serviceToken: string,
  ) {}

  async policy(userId: string): Promise<PlaybackPolicyResponse> {
    const base = await this.baseUrl();
    if (!base) throw unavailable('not registered');
    let status: number;
    let body: unknown;
    try {
      const response = await request(
        `${base.replace(/\/+$/, '')}/api/auth/internal/users/${encodeURIComponent(userId)}/playback-policy`,
        {
          headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken, accept: 'application/json' },
          headersTimeout: TIMEOUT_MS,
          bodyTimeout: TIMEOUT_MS,
        },
      );
      status = response.statusCode;
      const text = await response.body.text();
      body = text ? JSON.parse(text) : undefined;
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : String(error));
    }
    if (status === 200) {
      const parsed = playbackPolicyResponseSchema.safeParse(body);
      if (!parsed.success) throw unavailable('unexpected playback policy answer');
      return parsed.data;
    }
    const error = errorBodySchema.safeParse(body);
    if (status === 404 && error.success) {
      throw new AppError(404, error.data.error.code, error.data.error.message);
    }
    throw unavailable(`answered ${status}`);
  }
}
