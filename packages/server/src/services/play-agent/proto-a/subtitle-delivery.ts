import { LRUCache } from 'lru-cache';
import type { PlaybackFile } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import { LoopbackTickets } from '../../../platform/loopback-tickets.js';
import { sendMedia } from '../stream/media-sender.js';
import type { MediaSource } from '../stream/sources.js';
import type { SubtitleTool, TextSubtitleFormat } from '../stream/subtitle-tool.js';
import type { PlaybackStreamer } from './streamer.js';

/** Extracted subtitles kept in memory: at most this many bytes in all, each for an hour. */
const CACHE_BYTES = 32 * 1024 * 1024;
const CACHE_MS = 60 * 60 * 1000;

/**
 * Text subtitles players ask for that are not a file as it is: an embedded stream (ffmpeg reads the media
 * through a loopback ticket, wherever its bytes lie) or an ASS/SSA file as WebVTT. Results are cached by
 * file version; concurrent requests for the same one share a run.
 */
export class SubtitleDelivery {
  private readonly cache = new LRUCache<string, Buffer>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (value) => Math.max(1, value.length),
    ttl: CACHE_MS,
  });
  private readonly running = new Map<string, Promise<Buffer>>();
  private readonly tickets: LoopbackTickets<MediaSource>;

  constructor(
    private readonly deps: {
      streamer: Pick<PlaybackStreamer, 'openSource'>;
      tool: SubtitleTool;
      logger: Logger;
    },
  ) {
    this.tickets = new LoopbackTickets(deps.logger, (request, response, source) =>
      sendMedia(request, response, source),
    );
  }

  /** Embedded stream `index` (ffprobe's) of the file, in `format`. */
  embedded(file: PlaybackFile, index: number, format: TextSubtitleFormat): Promise<Buffer> {
    return this.once(this.key(file, `${index}`, format), async () => {
      const source = await this.deps.streamer.openSource(file);
      try {
        const ticket = await this.tickets.open(source);
        try {
          return await this.deps.tool.extract(ticket.url, index, format);
        } finally {
          ticket.release();
        }
      } finally {
        await source.close();
      }
    });
  }

  /** A subtitle file's bytes (`path` names it in the cache) turned into `format`. */
  converted(file: PlaybackFile, path: string, bytes: Buffer, format: TextSubtitleFormat): Promise<Buffer> {
    return this.once(this.key(file, path, format), () => this.deps.tool.convert(bytes, format));
  }

  close(): Promise<void> {
    return this.tickets.close();
  }

  private key(file: PlaybackFile, part: string, format: string): string {
    return [file.nodeId, file.mountId, file.path, file.size, file.mtime, part, format].join('\u0000');
  }

  private once(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    const cached = this.cache.get(key);
    if (cached) return Promise.resolve(cached);
    let run = this.running.get(key);
    if (!run) {
      run = make()
        .then((body) => {
          this.cache.set(key, body);
          return body;
        })
        .finally(() => this.running.delete(key));
      this.running.set(key, run);
    }
    return run;
  }
}
