import {
  playbackImageParamsSchema,
  playbackItemParamsSchema,
  playbackItemSchema,
  playbackItemsQuerySchema,
  playbackItemsResponseSchema,
  playbackLatestQuerySchema,
  playbackNextUpQuerySchema,
  playbackResumeQuerySchema,
  playbackUserDataSchema,
  playbackUserDataUpdateSchema,
  playbackUserQuerySchema,
  playbackViewsResponseSchema,
} from '@svc/contracts';
import type { AppServer } from '../../platform/http/create-server.js';
import { registerImageRoute } from './image-route.js';
import type { PlaybackCatalogService } from './playback-catalog.service.js';

/** The catalogue for the play-agent (service token only; never routed by the gateway). */
export function registerPlaybackRoutes(app: AppServer, catalog: PlaybackCatalogService): void {
  const config = { auth: { service: true } } as const;
  const list = { 200: playbackItemsResponseSchema };

  app.get(
    '/api/media/internal/playback/views',
    {
      config,
      schema: { querystring: playbackUserQuerySchema, response: { 200: playbackViewsResponseSchema } },
    },
    async (request) => catalog.views(request.query.userId),
  );
  app.post(
    '/api/media/internal/playback/items/query',
    { config, schema: { body: playbackItemsQuerySchema, response: list } },
    async (request) => catalog.query(request.body),
  );
  app.get(
    '/api/media/internal/playback/items/:id',
    {
      config,
      schema: {
        params: playbackItemParamsSchema,
        querystring: playbackUserQuerySchema,
        response: { 200: playbackItemSchema },
      },
    },
    async (request) => catalog.item(request.params.id, request.query.userId),
  );
  app.get(
    '/api/media/internal/playback/latest',
    { config, schema: { querystring: playbackLatestQuerySchema, response: list } },
    async (request) => catalog.latest(request.query),
  );
  app.get(
    '/api/media/internal/playback/resume',
    { config, schema: { querystring: playbackResumeQuerySchema, response: list } },
    async (request) => catalog.resume(request.query),
  );
  app.get(
    '/api/media/internal/playback/next-up',
    { config, schema: { querystring: playbackNextUpQuerySchema, response: list } },
    async (request) => catalog.nextUp(request.query),
  );
  app.put(
    '/api/media/internal/playback/user-data',
    { config, schema: { body: playbackUserDataUpdateSchema, response: { 200: playbackUserDataSchema } } },
    async (request) => catalog.updateUserData(request.body),
  );
  registerImageRoute(
    app,
    '/api/media/internal/playback/items/:id/images/:type',
    config.auth,
    playbackImageParamsSchema,
    // `userId`: the player that asked, when it presented a token (its libraries then apply).
    (id, type, range, reply, request) => {
      const userId = (request.query as { userId?: unknown }).userId;
      return catalog.sendImage(id, type, range, reply, typeof userId === 'string' ? userId : undefined);
    },
  );
}
