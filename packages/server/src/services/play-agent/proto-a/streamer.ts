import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { request as undiciRequest } from 'undici';
import {
  locateResponseSchema,
  type LocateResponse,
  type PlaybackFile,
  type PlaybackItem,
} from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import { attachmentDisposition } from '../../../platform/http/file-delivery/disposition.js';
import type { Logger } from '../../../platform/logger.js';
import type { RegistryClient } from '../../../platform/registry-client.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { sendMedia } from '../stream/media-sender.js';
import {
  openLocalFile,
  upstreamFileSource,
  type CacheWrapFacts,
  type MediaSource,
  type SourceCache,
} from '../stream/sources.js';
import { TokenBucket } from '../stream/token-bucket.js';
import { containerOf } from './dto.js';
import { driveBSource, type DriveBReads } from '../cdn/drive-b-source.js';

/** Where files lie is asked again after this long (a replaced file is then found). */
const LOCATE_CACHE_MS = 30_000;

export interface StreamTarget {
  file: PlaybackFile;
  /** Sent as a download (Content-Disposition: attachment) with this file name. */
  attachmentName?: string;
  /** Bytes the client's socket accepted, as they go. */
  onBytes: (delta: number) => void;
  /** The played item: its facts go to the video cache (entry name, bitrate, release date, episode). */
  item?: PlaybackItem;
}

const unavailable = (message: string) => new AppError(503, 'UPSTREAM_UNAVAILABLE', message);

/**
 * Chooses where a file's bytes come from and sends them: straight from the disk when the storage node
 * runs on this machine (its `locate` answer names a file whose fstat agrees), else through the storage
 * node's internal file route. Each stream gets its own token bucket when a rate is set; a new rate
 * reconfigures the live buckets (their remainder is reset).
 */
export class PlaybackStreamer {
  private readonly located = new LRUCache<string, LocateResponse>({ max: 10_000, ttl: LOCATE_CACHE_MS });
  private readonly buckets = new Set<TokenBucket>();
  private rate: number;
  private sending = 0;
  private readonly onIdle = new Set<() => void>();

  constructor(
    private readonly deps: {
      registry: Pick<RegistryClient, 'lookup'>;
      serviceToken: string;
      rateBytesPerSecond: number;
      logger: Logger;
      /** The node's video cache (cache-runtime/); files read from this machine's disk never go through it. */
      videoCache?: SourceCache | null;
      /** Distinct viewers of an item in the last day for the cache's popularity rule (null: not needed or unknown). */
      viewersLastDay?: (itemId: string) => Promise<number | null>;
      /** DRIVE_B files are read from the CDN by this node, at its preferred address (cdn/). */
      driveB?: DriveBReads;
    },
  ) {
    this.rate = deps.rateBytesPerSecond;
  }

  get rateBytesPerSecond(): number {
    return this.rate;
  }

  setRate(bytesPerSecond: number): void {
    this.rate = bytesPerSecond;
    for (const bucket of this.buckets) bucket.reconfigure(bytesPerSecond);
  }

  async send(request: FastifyRequest, reply: FastifyReply, target: StreamTarget): Promise<void> {
    const { file } = target;
    const baseUrl = await this.storageUrl(file.nodeId);
    const headers: Record<string, string> = {
      ...corsHeaders(reply),
      ...(target.attachmentName
        ? { 'content-disposition': attachmentDisposition(target.attachmentName) }
        : {}),
    };
    const source = await this.source(baseUrl, file, target.item ? cacheFacts(target.item) : {});
    // Every stream has a bucket (unlimited at rate 0), so a new rate reaches the streams already running.
    const bucket = new TokenBucket(this.rate);
    this.buckets.add(bucket);
    reply.hijack();
    this.sending++;
    try {
      const result = await sendMedia(request.raw, reply.raw, source, {
        container: containerOf(file),
        name: file.path,
        bucket,
        onBytes: target.onBytes,
        headers,
      });
      if (result.interrupted === 'source') {
        this.located.delete(this.key(file));
        this.deps.logger.warn({ err: (result.error as Error | undefined)?.message }, 'stream source failed');
      }
    } finally {
      this.buckets.delete(bucket);
      await source.close();
      if (--this.sending === 0) for (const resolve of this.onIdle) resolve();
    }
  }

  /**
   * Resolves once no stream is being sent (their last bytes counted and their sources closed), or after
   * `timeoutMs`: a stop waits here after closing the listener so no byte count comes in after the meter's
   * last flush.
   */
  async settled(timeoutMs: number): Promise<void> {
    if (this.sending === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let done!: () => void;
    const idle = new Promise<void>((resolve) => {
      done = resolve;
      this.onIdle.add(done);
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await idle;
    } finally {
      clearTimeout(timer);
      this.onIdle.delete(done);
    }
  }

  /** The file's bytes for a reader of this process (the subtitle extractor); the caller closes it. */
  async openSource(file: PlaybackFile): Promise<MediaSource> {
    return this.source(await this.storageUrl(file.nodeId), file);
  }

  /** A small file next to the media (an external subtitle), whole. */
  async readSmall(
    file: Pick<PlaybackFile, 'nodeId' | 'mountId' | 'path'>,
    maxBytes: number,
  ): Promise<Buffer> {
    const baseUrl = await this.storageUrl(file.nodeId);
    const url = `${baseUrl}/api/storage/internal/mounts/${encodeURIComponent(file.mountId)}/file?path=${encodeURIComponent(file.path)}`;
    const answer = await undiciRequest(url, {
      headers: { [SERVICE_TOKEN_HEADER]: this.deps.serviceToken },
      headersTimeout: 15_000,
      bodyTimeout: 30_000,
    }).catch((error: Error) => {
      throw unavailable(`the storage node did not answer: ${error.message}`);
    });
    if (answer.statusCode === 404) {
      await answer.body.dump();
      throw new AppError(404, 'NOT_FOUND', 'file not found');
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      throw new AppError(502, 'UPSTREAM_FAILED', `the storage node answered ${answer.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of answer.body) {
      length += (chunk as Buffer).length;
      if (length > maxBytes) {
        answer.body.destroy();
        throw new AppError(413, 'FILE_TOO_LARGE', 'the file is too large to send this way');
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  private key(file: Pick<PlaybackFile, 'nodeId' | 'mountId' | 'path'>): string {
    return `${file.nodeId}\u0000${file.mountId}\u0000${file.path}`;
  }

  /** The base URL of a storage node (the newest registry entry). */
  async storageUrl(nodeId: string): Promise<string> {
    let instances;
    try {
      instances = await this.deps.registry.lookup('svc-control-storage', nodeId);
    } catch (error) {
      throw unavailable(`registry lookup failed: ${(error as Error).message}`);
    }
    const newest = [...instances].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
    if (!newest) throw unavailable(`storage node ${nodeId} is not online`);
    return newest.baseUrl.replace(/\/+$/, '');
  }

  private async source(baseUrl: string, file: PlaybackFile, facts?: CacheWrapFacts): Promise<MediaSource> {
    let located = await this.locate(baseUrl, file, false);
    if (located?.answer.localPath) {
      let local = await openLocalFile(located.answer.localPath, located.answer);
      if (!local.ok && !located.fresh) {
        // The file changed since the cached answer: ask again before giving up on the disk.
        located = await this.locate(baseUrl, file, true);
        if (located?.answer.localPath) local = await openLocalFile(located.answer.localPath, located.answer);
      }
      if (local.ok) return local.source;
    }
    const cache =
      facts && this.deps.videoCache
        ? { cache: this.deps.videoCache, cacheFacts: await this.withViewers(facts) }
        : {};
    if (located && this.deps.driveB) {
      const mtime = new Date(located.answer.mtime);
      const cdn = await driveBSource(
        this.deps.driveB,
        { baseUrl, mountId: file.mountId, path: file.path },
        { size: located.answer.size, mtime: Number.isNaN(mtime.getTime()) ? null : mtime },
      );
      if (cdn) {
        if (!cache.cache) return cdn;
        const name = file.path.split('/').filter(Boolean).at(-1) ?? file.path;
        // The same entry as through the storage node's route: the cache does not care where bytes come from.
        return cache.cache.wrap(cdn, { name, ...cache.cacheFacts, sourceId: `${file.mountId}:${file.path}` });
      }
    }
    return upstreamFileSource({
      baseUrl,
      mountId: file.mountId,
      path: file.path,
      serviceToken: this.deps.serviceToken,
      // Only playback is cached (facts given); the subtitle extractor's reads pass by.
      ...cache,
      // The answer (even cached) saves a HEAD per Range request, which matters on remote drives. A file
      // replaced within the cache time fails that one request (502) and drops the cached answer.
      ...(located ? { known: { size: located.answer.size, mtime: located.answer.mtime } } : {}),
    });
  }

  private async withViewers(facts: CacheWrapFacts): Promise<CacheWrapFacts> {
    if (!facts.itemId || !this.deps.viewersLastDay) return facts;
    return { ...facts, viewersLastDay: await this.deps.viewersLastDay(facts.itemId) };
  }

  /** The storage node's `locate` answer (cached); null when it has none (the file route then answers). */
  private async locate(
    baseUrl: string,
    file: PlaybackFile,
    refresh: boolean,
  ): Promise<{ answer: LocateResponse; fresh: boolean } | null> {
    const key = this.key(file);
    const cached = refresh ? undefined : this.located.get(key);
    if (cached) return { answer: cached, fresh: false };
    this.located.delete(key);
    try {
      const url = `${baseUrl}/api/storage/internal/mounts/${encodeURIComponent(file.mountId)}/locate?path=${encodeURIComponent(file.path)}`;
      const answer = await undiciRequest(url, {
        headers: { [SERVICE_TOKEN_HEADER]: this.deps.serviceToken, accept: 'application/json' },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      if (answer.statusCode === 404) {
        await answer.body.dump();
        throw new AppError(404, 'NOT_FOUND', 'the file is not on the storage node');
      }
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        return null;
      }
      const parsed = locateResponseSchema.safeParse(await answer.body.json());
      if (!parsed.success) return null;
      this.located.set(key, parsed.data);
      return { answer: parsed.data, fresh: true };
    } catch (error) {
      if (error instanceof AppError) throw error;
      return null;
    }
  }
}

/** What the video cache is told about a played item (its popularity is asked separately). */
function cacheFacts(item: PlaybackItem): CacheWrapFacts {
  const info = item.file?.mediaInfo;
  return {
    name: item.name,
    durationSeconds: info?.durationSeconds ?? null,
    bitrate: info?.bitrate ?? null,
    releaseDate: item.premiereDate,
    driveId: item.file?.mountId ?? null,
    itemId: item.id,
    seriesName: item.kind === 'episode' ? item.seriesName : null,
    seasonNumber: item.kind === 'episode' ? item.parentIndexNumber : null,
    episodeNumber: item.kind === 'episode' ? item.indexNumber : null,
  };
}

/**
 * The CORS headers already set for this request (browser-access.ts): a hijacked reply writes only what the
 * sender writes, and a `<video crossorigin>` or a fetch of the stream fails without them.
 */
function corsHeaders(reply: FastifyReply): Record<string, string> {
  return Object.fromEntries(
    Object.entries(reply.getHeaders())
      .filter(([name, value]) => name.startsWith('access-control-') && value !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );
}
