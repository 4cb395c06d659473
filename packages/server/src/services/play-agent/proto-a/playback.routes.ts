import { randomUUID } from 'node:crypto';
import type { ActivityEventType, PlaybackItem, PlaybackUserDataUpdate } from '@svc/contracts';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import type { PlayedMedia } from '../reporting/play-context.js';
import { assertSelf } from './browse.routes.js';
import { runTimeTicks, userDataDto } from './dto.js';
import { fromProtocolId, TICKS_PER_SECOND, toProtocolId } from './ids.js';
import { mediaSourceDto } from './media-source.js';
import { protoA } from './declarations.js';
import type { PlayerRequest, ProtocolRoutes } from './protocol.js';
import type { ProtoARequest } from './registrar.js';

/** A stop report at or beyond this share of the runtime marks the item played. */
const PLAYED_SHARE = 0.9;

type UserDataBody = NonNullable<ProtoARequest<typeof protoA.UpdateUserItemData>['body']>;
type ReportBody = ProtoARequest<typeof protoA.ReportPlaybackStart>['body'];

/**
 * Emby's `POST Users/{id}/Items/{itemId}/UserData`: only the fields present change, each to its value
 * (Played does not move the position or the plays); null is absent, except for LastPlayedDate, which it
 * clears. The schema (declarations.ts) refused values of the wrong type.
 */
function userDataChangeOf(body: UserDataBody): Omit<PlaybackUserDataUpdate, 'userId' | 'itemId'> {
  const { IsFavorite: isFavorite, Played: played, PlayCount: playCount } = body;
  const ticks = body.PlaybackPositionTicks;
  const lastPlayed = body.LastPlayedDate;
  const replace = {
    ...(played != null ? { played } : {}),
    ...(playCount != null ? { playCount } : {}),
    ...(ticks != null ? { playbackPositionTicks: Math.round(ticks) } : {}),
    ...(lastPlayed !== undefined
      ? { lastPlayedAt: lastPlayed === null ? null : new Date(lastPlayed).toISOString() }
      : {}),
  };
  return {
    ...(isFavorite != null ? { isFavorite } : {}),
    ...(Object.keys(replace).length > 0 ? { replace } : {}),
  };
}

const nonEmpty = (value: string | null | undefined) => (value ? value : undefined);
/** A position in ticks: a finite number from 0 (a negative one is ignored, as Emby does). */
const ticksOf = (value: number | null | undefined) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

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

  routes.signedIn(protoA.GetPlaybackInfo, async (request, _reply, player) => {
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

  const report =
    (type: ActivityEventType) => async (request: { body: ReportBody }, player: PlayerRequest) => {
      const { body } = request;
      const rawItem = nonEmpty(body.ItemId) ?? player.query.string('ItemId');
      if (!rawItem) throw badRequest('ItemId is required');
      const item = await fileItem(player, rawItem);
      const positionTicks =
        ticksOf(body.PositionTicks) ?? ticksOf(Number(player.query.string('PositionTicks')));
      const positionSec = positionTicks !== undefined ? positionTicks / TICKS_PER_SECOND : null;
      const playSessionId = nonEmpty(body.PlaySessionId) ?? player.query.string('PlaySessionId');
      deps.sessions.report(type, player.context, playedMedia(item), {
        ...(playSessionId ? { playSessionId: playSessionId.slice(0, 128) } : {}),
        positionSec,
        isPaused: body.IsPaused === true,
        playMethod: nonEmpty(body.PlayMethod) ?? 'DirectStream',
        failed: body.Failed === true,
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
  routes.signedIn(protoA.ReportPlaybackStart, async (request, reply, player) => {
    await playing(request, player);
    return reply.status(204).send();
  });
  routes.signedIn(protoA.ReportPlaybackProgress, async (request, reply, player) => {
    await progress(request, player);
    return reply.status(204).send();
  });
  routes.signedIn(protoA.ReportPlaybackStopped, async (request, reply, player) => {
    await stopped(request, player);
    return reply.status(204).send();
  });
  routes.signedIn(protoA.PingPlaybackSession, async (_request, reply, player) => {
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

  routes.signedIn(protoA.MarkPlayed, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { played: true, countPlay: true }),
  );
  routes.signedIn(protoA.MarkUnplayed, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { played: false, playbackPositionTicks: 0 }),
  );
  routes.signedIn(protoA.MarkUnplayedByPost, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { played: false, playbackPositionTicks: 0 }),
  );
  routes.signedIn(protoA.MarkFavorite, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { isFavorite: true }),
  );
  routes.signedIn(protoA.UnmarkFavorite, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { isFavorite: false }),
  );
  routes.signedIn(protoA.UnmarkFavoriteByPost, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), { isFavorite: false }),
  );
  routes.signedIn(protoA.UpdateUserItemData, async (request, _reply, player) =>
    setUserData(player, itemParam(request, player), userDataChangeOf(request.body ?? {})),
  );
  routes.signedIn(protoA.GetUserItemData, async (request, _reply, player) => {
    const id = fromProtocolId(itemParam(request, player));
    if (!id) throw notFound('item');
    const item = await deps.media.item(player.player.userId, id);
    return userDataDto(toProtocolId(id), item.userData, runTimeTicks(item));
  });
}
