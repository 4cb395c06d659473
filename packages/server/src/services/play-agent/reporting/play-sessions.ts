import { randomUUID } from 'node:crypto';
import type { ActivityEventType } from '@svc/contracts';
import type { ActivityReporter } from './activity-reporter.js';
import {
  BareStreams,
  streamKey,
  type BareStreamEvent,
  type StreamConnection,
  type StreamKind,
} from './bare-streams.js';
import type { PlayContext, PlayedMedia } from './play-context.js';

export type { PlayContext, PlayedMedia } from './play-context.js';

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

/** Longest watch time one event may carry: a gap beyond it is a player that went away, not watching. */
export const MAX_EVENT_GAP_MS = 5 * 60_000;
/** A session without any report for this long is closed with a stop event (reason `timeout`). */
export const SESSION_IDLE_MS = 10 * 60_000;
/** How often idle sessions and report-less streams are looked at. */
export const SWEEP_MS = 5_000;

/**
 * Turns the players' Playing / Progress / Stopped reports into activity events. The bytes of the streams
 * a player opened (counted on what was written to it) go with its next report of the same item through
 * the same token, so each event carries the bytes since the previous one. Streams no report claims are
 * judged by BareStreams: long ones become play sessions of their own, probes leave no trace.
 */
export class PlaySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly streams: BareStreams;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      reporter: Pick<ActivityReporter, 'record'>;
      nodeId: string;
      now?: () => number;
    },
  ) {
    this.streams = new BareStreams(() => this.now());
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  start(): void {
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** A byte route began writing a media item to a player: its bytes and end go to the returned handle. */
  openStream(context: PlayContext, media: PlayedMedia, kind: StreamKind): StreamConnection {
    return this.streams.open(context, media, kind, this.reported(context.tokenId, media.id));
  }

  /** Report-less streams kept (tests). */
  get streamsTracked(): number {
    return this.streams.size;
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
    this.streams.claim(context.tokenId, media.id).forEach((event) => this.emitStream(event));
    this.emit(session, type, {
      durationMs: Math.max(0, watchedMs),
      bytes: this.streams.takeBytes(context.tokenId, media.id),
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

  /** Closes idle sessions and moves the report-less streams on (counted, progress, ended). */
  sweep(): void {
    this.closeSessions((session, now) => now - session.lastSeenAt >= SESSION_IDLE_MS, {
      result: 'timeout',
      reason: `no report for ${Math.round(SESSION_IDLE_MS / 60_000)} minutes`,
    });
    this.streams
      .sweep((tokenId, mediaId) => this.reported(tokenId, mediaId))
      .forEach((event) => this.emitStream(event));
  }

  /** Logs everything still open (clean shutdown). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.closeSessions(() => true, { result: 'interrupted', reason: 'the play-agent stopped' });
    this.streams.close().forEach((event) => this.emitStream(event));
  }

  /** Whether a reported session of the token and item is open. */
  private reported(tokenId: string, mediaId: string): boolean {
    for (const session of this.sessions.values()) {
      if (session.context.tokenId === tokenId && session.media.id === mediaId) return true;
    }
    return false;
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
        bytes: this.streams.takeBytes(session.context.tokenId, session.media.id),
        positionSec: null,
        playMethod: 'DirectStream',
        ...outcome,
      });
    }
  }

  private emitStream(event: BareStreamEvent): void {
    const session = { sessionId: event.sessionId, context: event.context, media: event.media };
    this.emit(session, event.type, {
      occurredAt: event.occurredAt,
      durationMs: event.durationMs,
      bytes: event.bytes,
      positionSec: null,
      playMethod: 'DirectStream',
      result: event.result,
      reason: event.reason,
    });
  }

  private emit(
    session: Pick<Session, 'sessionId' | 'context' | 'media'>,
    type: ActivityEventType,
    values: {
      occurredAt?: number;
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
      occurredAt: new Date(values.occurredAt ?? this.now()).toISOString(),
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
