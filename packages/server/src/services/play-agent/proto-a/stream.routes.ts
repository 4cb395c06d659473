import { basename } from 'node:path/posix';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { libraryAccessAllows, type PlaybackFile, type PlaybackItem } from '@svc/contracts';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { fromProtocolId } from './ids.js';
import { TEXT_SUBTITLES } from './media-source.js';
import { playedMedia } from './playback.routes.js';
import { protoA } from './declarations.js';
import type { PlayerRequest, ProtocolRoutes } from './protocol.js';
import { srtToVtt } from './subtitles.js';

const STREAM_FILE = /^(stream|original)(\.[A-Za-z0-9]{1,10})?$/i;
const SUBTITLE_FILE = /^stream\.([A-Za-z0-9]{1,10})$/i;
/** Item lookups of the byte routes are reused this long: players send many Range requests per play. */
const ITEM_CACHE_MS = 30_000;
const SUBTITLE_MAX_BYTES = 10 * 1024 * 1024;

/** Video, audio and download bytes and external subtitles (artwork: image-cache/artwork.routes.ts). */
export function registerStreamRoutes(
  routes: ProtocolRoutes,
  hooks: { played?: (item: PlaybackItem) => void } = {},
): void {
  const { deps } = routes;
  const items = new LRUCache<string, PlaybackItem>({ max: 5_000, ttl: ITEM_CACHE_MS });

  /**
   * The item behind a byte route, looked up once per ITEM_CACHE_MS; the library access is checked on every
   * request against the gate's policy, so a library taken away stops the next request (hidden: 404).
   */
  const fileItem = async (player: PlayerRequest, rawId: string): Promise<PlaybackItem> => {
    const id = fromProtocolId(rawId);
    if (!id) throw notFound('item');
    const key = `${player.player.userId}\u0000${id}`;
    let item = items.get(key);
    if (!item) {
      item = await deps.media.item(player.player.userId, id);
      items.set(key, item);
    }
    if (!item.file) throw new AppError(400, 'NOT_PLAYABLE', 'this item is a folder, not a file');
    return item;
  };
  const admitTo = async (player: PlayerRequest, item: PlaybackItem, bytes: boolean) => {
    const policy = await deps.gate.admit(player.player, player.endpointId, { bytes });
    if (!libraryAccessAllows(policy.libraryAccess, item.libraryId)) throw notFound('item');
    return policy;
  };

  const stream =
    (attachment: boolean) => async (request: FastifyRequest, reply: FastifyReply, player: PlayerRequest) => {
      const params = request.params as { id: string; file?: string };
      if (params.file !== undefined && !STREAM_FILE.test(params.file)) throw notFound('stream');
      const item = await fileItem(player, params.id);
      // Authenticated (signedIn) and quota checked before any link is asked for.
      const policy = await admitTo(player, item, true);
      const media = playedMedia(item);
      if (!attachment && deps.redirect) {
        const answered = await deps.redirect.answer(reply, {
          userId: player.player.userId,
          itemId: item.id,
          playMode: policy.driveAPlayMode,
          file: item.file!,
        });
        // Answered (302 or 502). A redirected play reaches the activity log through the player's playback
        // reports, with 0 bytes: none pass this node.
        if (answered !== 'proxied') return;
      }
      const route = { userId: player.player.userId, endpointId: player.endpointId };
      const connection = deps.sessions.openStream(player.context, media, attachment ? 'download' : 'play');
      // Background work a play may start (metadata probing); returns at once.
      if (!attachment) hooks.played?.(item);
      try {
        await deps.streamer.send(request, reply, {
          file: item.file!,
          item,
          ...(attachment ? { attachmentName: basename(item.file!.path) } : {}),
          onBytes: (delta: number) => {
            deps.meter.add(route, delta);
            connection.bytes(delta);
          },
        });
      } finally {
        connection.end();
      }
    };

  routes.signedIn(protoA.GetMediaStream, stream(false));
  // Downloads are always proxied (never redirected to a drive's CDN).
  routes.signedIn(protoA.DownloadItem, stream(true));

  routes.signedIn(protoA.GetSubtitle, async (request, reply, player) => {
    const params = request.params as { id: string; index: string; file: string };
    const format = SUBTITLE_FILE.exec(params.file)?.[1]?.toLowerCase();
    if (!format || !/^\d{1,4}$/.test(params.index)) throw notFound('subtitle');
    const item = await fileItem(player, params.id);
    const body = await subtitleBody(item.file!, Number(params.index), format, () =>
      admitTo(player, item, false),
    );
    const type = format === 'vtt' ? 'text/vtt' : format === 'srt' ? 'application/x-subrip' : 'text/plain';
    return reply.type(`${type}; charset=utf-8`).header('cache-control', 'private, max-age=3600').send(body);
  });

  /**
   * The subtitle of stream `index`: an embedded text stream extracted by ffmpeg (as WebVTT or SubRip), or
   * a file beside the video (numbered after the embedded streams) as it is, SubRip as WebVTT, ASS/SSA as
   * WebVTT or SubRip through ffmpeg. `admit` runs once the subtitle is known to exist, before any work.
   */
  const subtitleBody = async (
    file: PlaybackFile,
    index: number,
    format: string,
    admit: () => Promise<unknown>,
  ): Promise<Buffer> => {
    const streams = file.mediaInfo?.streams ?? [];
    const embedded = streams.find((stream) => stream.index === index);
    if (embedded) {
      if (embedded.type !== 'subtitle') throw notFound('subtitle');
      await admit();
      if (!TEXT_SUBTITLES.has(embedded.codec)) {
        throw new AppError(
          400,
          'SUBTITLE_NOT_TEXT',
          `subtitle stream ${index} is ${embedded.codec}, drawn as pictures: it cannot be sent as text`,
        );
      }
      if (format !== 'vtt' && format !== 'srt') {
        throw new AppError(400, 'SUBTITLE_FORMAT', 'embedded subtitles are sent as Stream.vtt or Stream.srt');
      }
      return deps.subtitles.embedded(file, index, format);
    }
    const firstExternal = streams.reduce((max, s) => Math.max(max, s.index), -1) + 1;
    const subtitle = file.subtitles[index - firstExternal];
    if (!subtitle) throw notFound('subtitle');
    await admit();
    const source = subtitle.format.toLowerCase();
    const convertible = (source === 'ass' || source === 'ssa') && (format === 'vtt' || format === 'srt');
    if (source !== format && !(source === 'srt' && format === 'vtt') && !convertible) {
      throw new AppError(400, 'SUBTITLE_FORMAT', `this subtitle is ${source}; ask for Stream.${source}`);
    }
    const bytes = await deps.streamer.readSmall({ ...file, path: subtitle.path }, SUBTITLE_MAX_BYTES);
    if (source === format) return bytes;
    if (convertible) return deps.subtitles.converted(file, subtitle.path, bytes, format);
    return Buffer.from(srtToVtt(bytes.toString('utf8')), 'utf8');
  };
}
