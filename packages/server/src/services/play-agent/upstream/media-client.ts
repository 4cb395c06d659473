import {
  playbackItemSchema,
  playbackItemsResponseSchema,
  playbackUserDataSchema,
  playbackViewsResponseSchema,
  protocolServerInfoSchema,
  type ProtocolServerInfo,
  type PlaybackItem,
  type PlaybackItemsQuery,
  type PlaybackItemsResponse,
  type PlaybackUserData,
  type PlaybackUserDataUpdate,
  type PlaybackView,
} from '@svc/contracts';
import type { ServiceClient } from '../../../platform/http/service-client.js';

const query = (values: Record<string, string | number | undefined>) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined) params.set(key, String(value));
  return params.toString();
};

/** The media service's playback catalogue. */
export class MediaClient {
  constructor(private readonly client: ServiceClient) {}

  async views(userId: string): Promise<PlaybackView[]> {
    const answer = await this.client.json(
      'GET',
      `/api/media/internal/playback/views?${query({ userId })}`,
      playbackViewsResponseSchema,
    );
    return answer.views;
  }

  items(request: PlaybackItemsQuery): Promise<PlaybackItemsResponse> {
    return this.client.json('POST', '/api/media/internal/playback/items/query', playbackItemsResponseSchema, {
      body: request,
    });
  }

  item(userId: string, id: string): Promise<PlaybackItem> {
    return this.client.json(
      'GET',
      `/api/media/internal/playback/items/${encodeURIComponent(id)}?${query({ userId })}`,
      playbackItemSchema,
    );
  }

  async latest(userId: string, options: { parentId?: string; kinds?: string; limit?: number }) {
    return this.list('latest', { userId, ...options });
  }

  async resume(userId: string, options: { parentId?: string; limit?: number }) {
    return this.list('resume', { userId, ...options });
  }

  async nextUp(userId: string, options: { seriesId?: string; limit?: number }) {
    return this.list('next-up', { userId, ...options });
  }

  updateUserData(update: PlaybackUserDataUpdate): Promise<PlaybackUserData> {
    return this.client.json('PUT', '/api/media/internal/playback/user-data', playbackUserDataSchema, {
      body: update,
    });
  }

  protocolServerInfo(): Promise<ProtocolServerInfo> {
    return this.client.json('GET', '/api/media/internal/protocol/proto_a/settings', protocolServerInfoSchema);
  }

  /** Base URL and path of an item's image, for streaming it through; with a user, within its libraries. */
  async imageUrl(id: string, type: string, userId?: string): Promise<string> {
    const path = `/api/media/internal/playback/items/${encodeURIComponent(id)}/images/${type}`;
    return `${await this.client.baseUrl()}${path}${userId ? `?${query({ userId })}` : ''}`;
  }

  private async list(kind: string, values: Record<string, string | number | undefined>) {
    return this.client.json(
      'GET',
      `/api/media/internal/playback/${kind}?${query(values)}`,
      playbackItemsResponseSchema,
    );
  }
}
