import { randomUUID } from 'node:crypto';
import type { ActivityEventType, ActivityMediaType, PlaybackDevice } from '@svc/contracts';
import type { ActivityReporter } from './activity-reporter.js';

/** Who is playing, from where: the parts of an activity event that come from the request. */
export interface PlayContext {
  userId: string;
  tokenId: string;
  device: PlaybackDevice;
  clientIp: string;
  userAgent: string;
  endpointId: string | null;
}

export interface PlayedMedia {
  id: string;
  type: ActivityMediaType;
  name: string;
  seriesName: string | null;
  runtimeSec: number | null;
}

export interface PlayReport {
  playSessionId?: string;
  positionSec: number | null;
  isPaused: boolean;
  playMethod: string;
  failed?: boolean;
}

interface Session {
  key: string;
  sessionId: string;
  context: PlayContext;
  media: PlayedMedia;
  /** Time of the last report (start, progress, stop): watch time is counted from it. */
  lastEventAt: number;
  /** Time of the last sign of life (a report or a ping): idle sessions are closed from it. */
  lastSeenAt: number;
  paused: boolean;
}

interface StreamBytes {
  context: PlayContext;
  media: PlayedMedia;
  bytes: number;
  lastAt: number;
}

/** Longest watch time one event may carry: a gap beyond it is a player that went away, not watching. */
export const MAX_EVENT_GAP_MS = 5 * 60_000;
/** A session without any report for this long is closed with a stop event (reason `timeout`). */
export const SESSION_IDLE_MS = 10 * 60_000;
/** Streamed bytes no report claimed for this long are logged on their own (downloads, bare players). */
export const UNCLAIMED_BYTES_MS = 2 * 60_000;

const streamKey = (tokenId: string, mediaId: string) => `${tokenId}\u0000${mediaId}`;

/**
 * Turns the players' Playing / Progress / Stopped reports into activity events. The bytes of the streams
 * a player opened (counted on what was written to it) go with its next report of the same item through
 * the same token, so each event carries the bytes since the previous one.
 */
export class PlaySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly streamed = new Map<string, StreamBytes>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      reporter: Pick<ActivityReporter, 'record'>;
      nodeId: string;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  start(): void {
    this.timer = setInterval(() => this.sweep(), 30_000);
    this.timer.unref();
  }

  /** Bytes written to a player for a media item. */
  addStreamBytes(context: PlayContext, media: PlayedMedia, bytes: number): void {
    if (bytes <= 0) return;
    const key = streamKey(context.tokenId, media.id);
    const entry = this.streamed.get(key);
    if (entry) {
      entry.bytes += bytes;
      entry.lastAt = this.now();
      entry.context = context;
    } else {
      this.streamed.set(key, { context, media, bytes, lastAt: this.now() });
    }
  }

  report(type: ActivityEventType, context: PlayContext, media: PlayedMedia, report: PlayReport): void {
    const now = this.now();
    const key = report.playSessionId ?? streamKey(context.tokenId, media.id);
    let session = this.sessions.get(key);
    // A new start, an unknown session, or a session id reused for another item begins afresh.
    if (type === 'start' || !session || session.media.id !== media.id) {
      session = {
        key,
        sessionId: report.playSessionId ?? randomUUID(),
        context,
        media,
        lastEventAt: now,
        lastSeenAt: now,
        paused: false,
      };
      this.sessions.set(key, session);
    }
    const watchedMs =
      type === 'start' || session.paused ? 0 : Math.min(now - session.lastEventAt, MAX_EVENT_GAP_MS);
    session.lastEventAt = now;
    session.lastSeenAt = now;
    session.paused = report.isPaused;
    session.context = context;
    this.emit(session, type, {
      durationMs: Math.max(0, watchedMs),
      bytes: this.takeBytes(context.tokenId, media.id),
      positionSec: report.positionSec,
      playMethod: report.playMethod,
      result: type === 'stop' ? (report.failed ? 'failed' : 'completed') : null,
      reason: null,
    });
    if (type === 'stop') this.sessions.delete(key);
  }

  /** Keeps a session alive without an event (Sessions/Playing/Ping). */
  ping(playSessionId: string): boolean {
    const session = this.sessions.get(playSessionId);
    if (session) session.lastSeenAt = this.now();
    return session !== undefined;
  }

  get open(): number {
    return this.sessions.size;
  }

  /** Closes idle sessions and logs bytes no report claimed. */
  sweep(): void {
    this.closeSessions((session, now) => now - session.lastSeenAt >= SESSION_IDLE_MS, {
      result: 'timeout',
      reason: `no report for ${Math.round(SESSION_IDLE_MS / 60_000)} minutes`,
    });
    this.logUnclaimed((entry, now) => now - entry.lastAt >= UNCLAIMED_BYTES_MS);
  }

  /** Logs everything still open (clean shutdown). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.closeSessions(() => true, { result: 'interrupted', reason: 'the play-agent stopped' });
    this.logUnclaimed(() => true);
  }

  private closeSessions(
    due: (session: Session, now: number) => boolean,
    outcome: { result: string; reason: string },
  ): void {
    const now = this.now();
    for (const session of [...this.sessions.values()]) {
      if (!due(session, now)) continue;
      this.sessions.delete(session.key);
      this.emit(session, 'stop', {
        durationMs: 0,
        bytes: this.takeBytes(session.context.tokenId, session.media.id),
        positionSec: null,
        playMethod: 'DirectStream',
        ...outcome,
      });
    }
  }

  private logUnclaimed(due: (entry: StreamBytes, now: number) => boolean): void {
    const now = this.now();
    for (const [key, entry] of [...this.streamed]) {
      if (!due(entry, now)) continue;
      this.streamed.delete(key);
      const session: Session = {
        key,
        sessionId: `stream-${randomUUID()}`,
        context: entry.context,
        media: entry.media,
        lastEventAt: now,
        lastSeenAt: now,
        paused: false,
      };
      this.emit(session, 'progress', {
        durationMs: 0,
        bytes: entry.bytes,
        positionSec: null,
        playMethod: 'DirectStream',
        result: null,
        reason: 'bytes streamed without a playback report',
      });
    }
  }

  private takeBytes(tokenId: string, mediaId: string): number {
    const key = streamKey(tokenId, mediaId);
    const entry = this.streamed.get(key);
    if (!entry) return 0;
    this.streamed.delete(key);
    return entry.bytes;
  }

  private emit(
    session: Session,
    type: ActivityEventType,
    values: {
      durationMs: number;
      bytes: number;
      positionSec: number | null;
      playMethod: string;
      result: string | null;
      reason: string | null;
    },
  ): void {
    const { context, media } = session;
    this.deps.reporter.record({
      eventId: randomUUID(),
      userId: context.userId,
      eventType: type,
      occurredAt: new Date(this.now()).toISOString(),
      sessionId: session.sessionId.slice(0, 128),
      clientIp: context.clientIp.slice(0, 64),
      userAgent: context.userAgent.slice(0, 512),
      mediaId: media.id,
      mediaType: media.type,
      mediaName: media.name.slice(0, 512),
      seriesName: media.seriesName?.slice(0, 512) ?? null,
      durationMs: Math.round(values.durationMs),
      bytesDelta: values.bytes,
      positionSec: values.positionSec,
      runtimeSec: media.runtimeSec,
      nodeId: this.deps.nodeId,
      endpointId: context.endpointId,
      client: context.device.client.slice(0, 256),
      deviceName: context.device.deviceName.slice(0, 256),
      deviceId: context.device.deviceId.slice(0, 256),
      playMethod: values.playMethod.slice(0, 32),
      result: values.result,
      reason: values.reason,
      extras: {},
    });
  }
}
