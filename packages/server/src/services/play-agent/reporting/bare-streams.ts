import { randomUUID } from 'node:crypto';
import type { PlayContext, PlayedMedia } from './play-context.js';

/** A stream counts as a play session once its connections were open this long (service clock)… */
export const BARE_STREAM_MIN_OPEN_MS = 30_000;
/** …and delivered at least this many bytes: probes (ffprobe, HEAD, small ranges) never get there. */
export const BARE_STREAM_MIN_BYTES = 256 * 1024;
/** A stream whose last connection closed ends when no new one opened for this long (a seek reconnects). */
export const BARE_STREAM_GRACE_MS = 30_000;
/** A counted stream logs a progress event this often while it is open (the dashboard's sign of life). */
export const BARE_STREAM_PROGRESS_MS = 60_000;

/** One request of a byte route: the bytes it wrote, then its end. */
export interface StreamConnection {
  bytes(delta: number): void;
  end(): void;
}

/** `play`: a player reading the stream (its open time is watch time); `download`: a file download. */
export type StreamKind = 'play' | 'download';

/** What a stream hands to the activity log: the event and the values it carries. */
export interface BareStreamEvent {
  type: 'start' | 'progress' | 'stop';
  sessionId: string;
  context: PlayContext;
  media: PlayedMedia;
  occurredAt: number;
  durationMs: number;
  bytes: number;
  result: string | null;
  reason: string | null;
}

interface Stream {
  context: PlayContext;
  media: PlayedMedia;
  kind: StreamKind;
  connections: number;
  /** Bytes not yet carried by an event. */
  bytes: number;
  totalBytes: number;
  firstAt: number;
  /** Since when a connection is open (null: none is). */
  openSince: number | null;
  /** Time with a connection open, up to openSince. */
  openMs: number;
  /** Open time already carried by events. */
  loggedOpenMs: number;
  closedAt: number;
  /** Set once the stream counts as a play session of its own. */
  sessionId: string | null;
  lastEventAt: number;
  /** A playback report of the same token and item took over: its reports carry the bytes. */
  claimed: boolean;
}

export const streamKey = (tokenId: string, mediaId: string) => `${tokenId}\u0000${mediaId}`;

const REASONS: Record<StreamKind, string> = {
  play: 'stream without playback reports',
  download: 'download',
};

/**
 * The streams of each token and item and what becomes of them when no playback report claims them
 * (docs/activity-log.md, "Streams without playback reports"): a stream counts as a play session once its
 * connections were open for BARE_STREAM_MIN_OPEN_MS and delivered BARE_STREAM_MIN_BYTES; it then logs a
 * start, a progress every BARE_STREAM_PROGRESS_MS while open and a stop BARE_STREAM_GRACE_MS after its last
 * connection closed. A stream that ends before that (a probe) leaves nothing in the activity log.
 */
export class BareStreams {
  private readonly streams = new Map<string, Stream>();

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.streams.size;
  }

  open(context: PlayContext, media: PlayedMedia, kind: StreamKind, claimed: boolean): StreamConnection {
    const key = streamKey(context.tokenId, media.id);
    const now = this.now();
    let stream = this.streams.get(key);
    if (!stream) {
      stream = {
        context,
        media,
        kind,
        connections: 0,
        bytes: 0,
        totalBytes: 0,
        firstAt: now,
        openSince: null,
        openMs: 0,
        loggedOpenMs: 0,
        closedAt: now,
        sessionId: null,
        lastEventAt: now,
        claimed,
      };
      this.streams.set(key, stream);
    }
    const entry = stream;
    entry.context = context;
    entry.claimed ||= claimed;
    if (entry.connections === 0) entry.openSince = now;
    entry.connections += 1;
    let ended = false;
    return {
      bytes: (delta) => {
        if (delta <= 0) return;
        entry.bytes += delta;
        entry.totalBytes += delta;
      },
      end: () => {
        if (ended) return;
        ended = true;
        entry.connections -= 1;
        if (entry.connections === 0) {
          const at = this.now();
          entry.openMs += at - (entry.openSince ?? at);
          entry.openSince = null;
          entry.closedAt = at;
        }
      },
    };
  }

  /** The bytes of the token's stream of the item not yet carried by an event (a report takes them). */
  takeBytes(tokenId: string, mediaId: string): number {
    const stream = this.streams.get(streamKey(tokenId, mediaId));
    if (!stream) return 0;
    const bytes = stream.bytes;
    stream.bytes = 0;
    return bytes;
  }

  /**
   * A playback report of the token and item arrived: from now on its reports carry the stream's bytes. A
   * stream already counted as a session of its own ends here (the events for it are returned).
   */
  claim(tokenId: string, mediaId: string): BareStreamEvent[] {
    const stream = this.streams.get(streamKey(tokenId, mediaId));
    if (!stream || stream.claimed) return [];
    stream.claimed = true;
    if (stream.sessionId === null) return [];
    return [this.event(stream, 'stop', { result: 'completed', reason: 'a playback report took over' })];
  }

  /**
   * Counts the streams that reached the thresholds, logs the progress of counted ones and ends streams
   * whose connections closed more than BARE_STREAM_GRACE_MS ago. `reported(tokenId, mediaId)` tells whether
   * a reported session of that token and item is still open (a claimed stream stays while it is).
   */
  sweep(reported: (tokenId: string, mediaId: string) => boolean): BareStreamEvent[] {
    const now = this.now();
    const events: BareStreamEvent[] = [];
    for (const [key, stream] of [...this.streams]) {
      const gone = stream.connections === 0 && now - stream.closedAt >= BARE_STREAM_GRACE_MS;
      if (stream.claimed) {
        if (reported(stream.context.tokenId, stream.media.id)) continue;
        if (stream.connections === 0) {
          if (gone) this.streams.delete(key);
          continue;
        }
        // Its reported session ended (stopped or timed out) while the bytes still flow: judged on its own now.
        this.restart(stream, now);
      }
      if (stream.sessionId === null && this.reachedThresholds(stream, now)) {
        stream.sessionId = `stream-${randomUUID()}`;
        events.push(this.event(stream, 'start', { at: stream.firstAt, reason: REASONS[stream.kind] }));
        events.push(this.event(stream, 'progress'));
      }
      if (stream.sessionId === null) {
        if (gone) this.streams.delete(key);
      } else if (gone) {
        this.streams.delete(key);
        events.push(
          this.event(stream, 'stop', { result: 'completed', reason: 'the stream connection closed' }),
        );
      } else if (now - stream.lastEventAt >= BARE_STREAM_PROGRESS_MS) {
        events.push(this.event(stream, 'progress'));
      }
    }
    return events;
  }

  /** Ends every stream (the play-agent stops): counted ones with a stop, result `interrupted`. */
  close(): BareStreamEvent[] {
    const events = [...this.streams.values()]
      .filter((stream) => !stream.claimed && stream.sessionId !== null)
      .map((stream) =>
        this.event(stream, 'stop', { result: 'interrupted', reason: 'the play-agent stopped' }),
      );
    this.streams.clear();
    return events;
  }

  private restart(stream: Stream, now: number): void {
    Object.assign(stream, {
      claimed: false,
      firstAt: now,
      openSince: now,
      openMs: 0,
      loggedOpenMs: 0,
      totalBytes: stream.bytes,
      sessionId: null,
    });
  }

  private openTime(stream: Stream, now: number): number {
    return stream.openMs + (stream.openSince === null ? 0 : now - stream.openSince);
  }

  private reachedThresholds(stream: Stream, now: number): boolean {
    return (
      stream.totalBytes >= BARE_STREAM_MIN_BYTES && this.openTime(stream, now) >= BARE_STREAM_MIN_OPEN_MS
    );
  }

  /** An event of a counted stream with the bytes and open time since its previous event. */
  private event(
    stream: Stream,
    type: BareStreamEvent['type'],
    options: { at?: number; result?: string; reason?: string } = {},
  ): BareStreamEvent {
    const now = this.now();
    const openMs = this.openTime(stream, now);
    const durationMs = type === 'start' || stream.kind === 'download' ? 0 : openMs - stream.loggedOpenMs;
    if (type !== 'start') stream.loggedOpenMs = openMs;
    const bytes = stream.bytes;
    stream.bytes = 0;
    stream.lastEventAt = now;
    return {
      type,
      sessionId: stream.sessionId!,
      context: stream.context,
      media: stream.media,
      occurredAt: options.at ?? now,
      durationMs: Math.max(0, durationMs),
      bytes,
      result: options.result ?? null,
      reason: options.reason ?? null,
    };
  }
}
