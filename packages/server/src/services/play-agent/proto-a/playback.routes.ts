import { randomUUID } from 'node:crypto';
import type { ActivityEventType, PlaybackItem, PlaybackUserDataUpdate } from '@svc/contracts';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import type { PlayedMedia } from '../reporting/play-context.js';
import { assertSelf } from './browse.routes.js';
import { runTimeTicks, userDataDto } from './dto.js';
import { fromProtocolId, TICKS_PER_SECOND, toProtocolId } from './ids.js';
import { mediaSourceDto } from './media-source.js';
import type { PlayerRequest, ProtocolRoutes } from './protocol.js';

/** A stop report at or beyond this share of the runtime marks the item played. */
const PLAYED_SHARE = 0.9;

type Body = Record<string, unknown>;

/** Report bodies come with PascalCase (Emby) or camelCase (some Jellyfin clients) names. */
function field(body: Body, name: string): unknown {
  if (name in body) return body[name];
  const lower = name.toLowerCase();
  return Object.entries(body).find(([key]) => key.toLowerCase() === lower)?.[1];
}
const asString = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
const asNumber = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** A field of a UserData body: absent (or null) is undefined, a value of another type a 400. */
function typedField<T>(body: Body, name: string, read: (value: unknown) => T | undefined, kind: string) {
  const value = field(body, name);
  if (value === undefined || value === null) return undefined;
  const typed = read(value);
  if (typed === undefined) throw badRequest(`${name} must be ${kind}`);
  return typed;
}
const asBoolean = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
const asCount = (value: unknown) => (Number.isSafeInteger(value) ? (value as number) : undefined);
const asDate = (value: unknown) =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined;

/**
 * Emby's `POST Users/{id}/Items/{itemId}/UserData`: only the fields present change, each to its value
 * (Played does not move the position or the plays). Rating and Likes are not kept and are ignored.
 */
function userDataChangeOf(rawBody: unknown): Omit<PlaybackUserDataUpdate, 'userId' | 'itemId'> {
  const body = (rawBody && typeof rawBody === 'object' ? rawBody : {}) as Body;
  const isFavorite = typedField(body, 'IsFavorite', asBoolean, 'true or false');
  const played = typedField(body, 'Played', asBoolean, 'true or false');
  const playCount = typedField(body, 'PlayCount', asCount, 'a whole number');
  const ticks = typedField(body, 'PlaybackPositionTicks', asNumber, 'a number of ticks from 0');
  const lastPlayed = field(body, 'LastPlayedDate');
  const lastPlayedAt =
    lastPlayed === null ? null : typedField(body, 'LastPlayedDate', asDate, 'an ISO 8601 date');
  if (playCount !== undefined && playCount < 0) throw badRequest('PlayCount must be a whole number');
  const replace = {
    ...(played !== undefined ? { played } : {}),
    ...(playCount !== undefined ? { playCount } : {}),
    ...(ticks !== undefined ? { playbackPositionTicks: Math.round(ticks) } : {}),
    ...(lastPlayedAt !== undefined ? { lastPlayedAt } : {}),
  };
  return {
    ...(isFavorite !== undefined ? { isFavorite } : {}),
    ...(Object.keys(replace).length > 0 ? { replace } : {}),
  };
}

export function playedMedia(item: PlaybackItem): PlayedMedia {
  const runtime = item.file?.mediaInfo?.durationSeconds ?? null;
  return {
    id: item.id,
    type: item.kind === 'movie' ? 'movie' : item.kind === 'episode' ? 'episode' : 'other',
    name: item.name,
    seriesName: item.seriesName,
    runtimeSec: runtime,
  };
}

/** PlaybackInfo, the playback reports and the user's played / favourite / position data. */
export function registerPlaybackRoutes(routes: ProtocolRoutes): void {
  const { deps } = routes;

  const fileItem = async (player: PlayerRequest, rawId: string): Promise<PlaybackItem> => {
    const id = fromProtocolId(rawId);
    if (!id) throw notFound('item');
    const item = await deps.media.item(player.player.userId, id);
    if (!item.file) throw new AppError(400, 'NOT_PLAYABLE', 'this item is a folder, not a file');
    return item;
  };

  routes.signedIn(['GET', 'POST'], ['/Items/:id/PlaybackInfo'], async (request, _reply, player) => {
    assertSelf(player, player.query.string('UserId'));
    const item = await fileItem(player, (request.params as { id: string }).id);
    // A link is a promise of bytes: refused like a stream when the quota is used up.
    await deps.gate.admit(player.player, player.endpointId, { bytes: true });
    const playSessionId = toProtocolId(randomUUID());
    return {
      MediaSources: [
        mediaSourceDto(item, { server: deps.server(), token: player.player.token, playSessionId }),
      ],
      PlaySessionId: playSessionId,
    };
  });

  const report = (type: ActivityEventType) => async (request: { body: unknown }, player: PlayerRequest) => {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Body;
    const rawItem = asString(field(body, 'ItemId')) ?? player.query.string('ItemId');
    if (!rawItem) throw badRequest('ItemId is required');
    const item = await fileItem(player, rawItem);
    const positionTicks =
      asNumber(field(body, 'PositionTicks')) ?? asNumber(Number(player.query.string('PositionTicks')));
    const positionSec = positionTicks !== undefined ? positionTicks / TICKS_PER_SECOND : null;
    const playSessionId = asString(field(body, 'PlaySessionId')) ?? player.query.string('PlaySessionId');
    deps.sessions.report(type, player.context, playedMedia(item), {
      ...(playSessionId ? { playSessionId: playSessionId.slice(0, 128) } : {}),
      positionSec,
      isPaused: field(body, 'IsPaused') === true,
      playMethod: asString(field(body, 'PlayMethod')) ?? 'DirectStream',
      failed: field(body, 'Failed') === true,
    });
    await saveProgress(type, player, item, positionTicks);
  };

  const saveProgress = async (
    type: ActivityEventType,
    player: PlayerRequest,
    item: PlaybackItem,
    positionTicks: number | undefined,
  ) => {
    const runtime = runTimeTicks(item);
    const update: PlaybackUserDataUpdate = { userId: player.player.userId, itemId: item.id };
    if (
      type === 'stop' &&
      runtime &&
      positionTicks !== undefined &&
      positionTicks >= runtime * PLAYED_SHARE
    ) {
      Object.assign(update, { played: true, countPlay: true, playbackPositionTicks: 0 });
    } else if (positionTicks !== undefined) {
      update.playbackPositionTicks = Math.round(positionTicks);
      update.lastPlayedAt = new Date().toISOString();
    } else {
      return;
    }
    try {
      await deps.media.updateUserData(update);
      deps.cache.forgetUser(player.player.userId);
    } catch (error) {
      // The report itself is logged; a lost position must not fail the player's call.
      deps.logger.warn({ err: (error as Error).message, itemId: item.id }, 'playback position not saved');
    }
  };

  const playing = report('start');
  const progress = report('progress');
  const stopped = report('stop');
  routes.signedIn('POST', ['/Sessions/Playing'], async (request, reply, player) => {
    await playing(request, player);
    return reply.status(204).send();
  });
  routes.signedIn('POST', ['/Sessions/Playing/Progress'], async (request, reply, player) => {
    await progress(request, player);
    return reply.status(204).send();
  });
  routes.signedIn('POST', ['/Sessions/Playing/Stopped'], async (request, reply, player) => {
    await stopped(request, player);
    return reply.status(204).send();
  });
  routes.signedIn('POST', ['/Sessions/Playing/Ping'], async (_request, reply, player) => {
    const id = player.query.string('PlaySessionId');
    if (id) deps.sessions.ping(id.slice(0, 128));
    return reply.status(204).send();
  });

  // Played, favourite and position: Emby's forms under /Users/{userId}, Jellyfin's under /User*Items.
  const setUserData = async (
    player: PlayerRequest,
    rawId: string,
    values: Omit<PlaybackUserDataUpdate, 'userId' | 'itemId'>,
  ) => {
    const id = fromProtocolId(rawId);
    if (!id) throw notFound('item');
    const data = await deps.media.updateUserData({ userId: player.player.userId, itemId: id, ...values });
    deps.cache.forgetUser(player.player.userId);
    return userDataDto(toProtocolId(id), data);
  };
  const itemParam = (request: { params: unknown }, player: PlayerRequest) => {
    const params = request.params as { id: string; userId?: string };
    assertSelf(player, params.userId ?? player.query.string('UserId'));
    return params.id;
  };

  routes.signedIn(
    'POST',
    ['/Users/:userId/PlayedItems/:id', '/UserPlayedItems/:id'],
    async (request, _reply, player) =>
      setUserData(player, itemParam(request, player), { played: true, countPlay: true }),
  );
  routes.signedIn(
    ['DELETE'],
    ['/Users/:userId/PlayedItems/:id', '/UserPlayedItems/:id'],
    async (request, _reply, player) =>
      setUserData(player, itemParam(request, player), { played: false, playbackPositionTicks: 0 }),
  );
  routes.signedIn('POST', ['/Users/:userId/PlayedItems/:id/Delete'], async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { played: false, playbackPositionTicks: 0 }),
  );
  routes.signedIn(
    'POST',
    ['/Users/:userId/FavoriteItems/:id', '/UserFavoriteItems/:id'],
    async (request, _reply, player) => setUserData(player, itemParam(request, player), { isFavorite: true }),
  );
  routes.signedIn(
    'DELETE',
    ['/Users/:userId/FavoriteItems/:id', '/UserFavoriteItems/:id'],
    async (request, _reply, player) => setUserData(player, itemParam(request, player), { isFavorite: false }),
  );
  routes.signedIn('POST', ['/Users/:userId/FavoriteItems/:id/Delete'], async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { isFavorite: false }),
  );
  routes.signedIn(
    'POST',
    ['/Users/:userId/Items/:id/UserData', '/UserItems/:id/UserData'],
    async (request, _reply, player) =>
      setUserData(player, itemParam(request, player), userDataChangeOf(request.body)),
  );
  routes.signedIn(
    'GET',
    ['/Users/:userId/Items/:id/UserData', '/UserItems/:id/UserData'],
    async (request, _reply, player) => {
      const id = fromProtocolId(itemParam(request, player));
      if (!id) throw notFound('item');
      const item = await deps.media.item(player.player.userId, id);
      return userDataDto(toProtocolId(id), item.userData, runTimeTicks(item));
    },
  );
}
