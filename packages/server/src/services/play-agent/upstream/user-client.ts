import { z } from 'zod';
import {
  introspectResponseSchema,
  mediaViewerCountResponseSchema,
  playbackLoginResponseSchema,
  playbackPolicyResponseSchema,
  playbackUserSchema,
  type ActivityEvent,
  type IntrospectResponse,
  type MediaViewerCountResponse,
  type PlaybackLoginRequest,
  type PlaybackLoginResponse,
  type PlaybackPolicyResponse,
  type PlaybackUser,
  type TokenKind,
  type UsageReportRequest,
} from '@svc/contracts';
import type { ServiceClient } from '../../../platform/http/service-client.js';

/** The user service as the play-agent uses it: sign-in, tokens, policies, usage and the activity log. */
export class UserClient {
  constructor(private readonly client: ServiceClient) {}

  login(request: PlaybackLoginRequest): Promise<PlaybackLoginResponse> {
    return this.client.json('POST', '/api/auth/internal/playback/login', playbackLoginResponseSchema, {
      body: request,
    });
  }

  async logout(tokenId: string): Promise<void> {
    await this.client.send('POST', '/api/auth/internal/playback/logout', { body: { tokenId } });
  }

  /** Distinct accounts that played the item in the last 24 hours (the video cache's popularity rule). */
  mediaViewerCount(mediaId: string): Promise<MediaViewerCountResponse> {
    return this.client.json(
      'GET',
      `/api/auth/internal/reports/media-viewers?mediaId=${encodeURIComponent(mediaId)}`,
      mediaViewerCountResponseSchema,
    );
  }

  introspect(token: string, kind: TokenKind): Promise<IntrospectResponse> {
    return this.client.json('POST', '/api/auth/internal/introspect', introspectResponseSchema, {
      body: { token, kind },
    });
  }

  user(userId: string): Promise<PlaybackUser> {
    return this.client.json(
      'GET',
      `/api/auth/internal/playback/users/${encodeURIComponent(userId)}`,
      playbackUserSchema,
    );
  }

  playbackPolicy(userId: string): Promise<PlaybackPolicyResponse> {
    return this.client.json(
      'GET',
      `/api/auth/internal/users/${encodeURIComponent(userId)}/playback-policy`,
      playbackPolicyResponseSchema,
    );
  }

  async recordUsage(report: UsageReportRequest): Promise<void> {
    await this.client.send('POST', '/api/auth/internal/usage', { body: report });
  }

  async recordActivity(events: ActivityEvent[]): Promise<void> {
    await this.client.send('POST', '/api/auth/internal/activity', { body: { events } });
  }
}

export const emptySchema = z.unknown();
